package load

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The soak reads the daemon's debug lines of its start-up phases, text
// format, from each start's log.
func TestPhaseSummaries(t *testing.T) {
	dir := t.TempDir()
	logs := map[string]string{
		"a.log": `time=2026-11-27T01:44:55.247Z level=DEBUG msg="start-up phase" phase=store_open ms=0.5` + "\n" +
			`time=2026-11-27T01:44:55.248Z level=INFO msg="beamclaw started" pid=1` + "\n" +
			`time=2026-11-27T01:44:55.323Z level=DEBUG msg="start-up phase" phase=total ms=77.8` + "\n",
		"b.log": `time=2026-11-27T01:44:56.247Z level=DEBUG msg="start-up phase" phase=store_open ms=1.5` + "\n",
	}
	var paths []string
	for name, text := range logs {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	got := phaseSummaries(append(paths, filepath.Join(dir, "missing.log")))
	want := map[string]Summary{
		"store_open": Summarize([]time.Duration{500 * time.Microsecond, 1500 * time.Microsecond}),
		"total":      Summarize([]time.Duration{77800 * time.Microsecond}),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
}

// An acknowledged turn stays acknowledged in the count; one that failed
// is remembered as maybe stored.
func TestTurnLog(t *testing.T) {
	l := newTurnLog()
	l.sent("u1", "a", true)
	l.sent("u1", "b", false)
	l.sent("u2", "c", true)
	if l.acked() != 2 {
		t.Errorf("acked = %d, want 2", l.acked())
	}
	if diff := cmp.Diff(map[string]map[string]bool{"u1": {"a": true, "b": false}, "u2": {"c": true}}, l.users); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
}
