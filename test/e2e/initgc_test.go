package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestDaemonCollectsGarbageAsGOGCAsks: the collector, off while the
// binary's packages initialise (internal/initgc), is back on in the
// running daemon, at 100 by default and at what GOGC asks otherwise.
func TestDaemonCollectsGarbageAsGOGCAsks(t *testing.T) {
	for _, c := range []struct {
		gogc string
		want float64
	}{{"", 100}, {"50", 50}} {
		h := newHome(t, "")
		h.env = slices.DeleteFunc(h.env, func(kv string) bool { return strings.HasPrefix(kv, "GOGC=") })
		if c.gogc != "" {
			h.env = append(h.env, "GOGC="+c.gogc)
		}
		s := h.start()
		if got := metric(t, s.HTTPAddr, "beamclaw_go_gc_gogc_percent"); got != c.want {
			t.Errorf("GOGC=%q: the daemon's GC percent is %v, want %v", c.gogc, got, c.want)
		}
		h.must("stop")
	}
}
