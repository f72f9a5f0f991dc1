package session

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// maintEnv is a Manager on a fake clock whose maintenance scans are run by
// the test (maintainOnce; the service's own scan, a day away, never comes),
// recording the memory flushes.
func maintEnv(t *testing.T, mo MaintenanceOptions, at time.Time) (*env, *clock.Fake, func() []string) {
	t.Helper()
	fc := clock.NewFake(at)
	var mu sync.Mutex
	var notes []string
	e := newEnv(t, envOpts{
		session: func(o *Options) { o.Clock, o.Maintenance, o.TTL = fc, mo, 10*time.Hour },
		loop: func(o *loop.Options) {
			o.Clock = fc
			o.MemoryFlush = func(_ context.Context, _, n string) error {
				mu.Lock()
				notes = append(notes, n)
				mu.Unlock()
				return nil
			}
		},
	})
	e.p.flush = say("- a durable fact")
	e.p.summary = say("summary of the old part")
	return e, fc, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), notes...)
	}
}

// A session idle past IdleAfter whose history is above the threshold is
// compacted once (summary, flush, event), and not again until it is
// active again; one below it is left alone.
func TestMaintenanceIdleCompaction(t *testing.T) {
	e, fc, _ := maintEnv(t, MaintenanceOptions{Scan: 24 * time.Hour, IdleAfter: 10 * time.Minute,
		IdleThresholdPct: 1, IdleTargetPct: 1}, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	long := strings.Repeat("a long message about the project plan. ", 200) // ~2,000 tokens
	for _, q := range []string{long, long, "short"} {
		rec, _ := e.send(t, "ana", q)
		rec.wait(t)
	}
	rec, _ := e.send(t, "bo", "just hello")
	rec.wait(t)
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	fc.Advance(11 * time.Minute)
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	h, _ := e.m.History(e.sid("ana"))
	if len(h) >= 6 || h[0].Role != beamclaw.RoleSystem || !strings.Contains(h[0].Content, "summary of the old part") {
		t.Fatalf("ana's idle session was not compacted: %v", roles(h))
	}
	if hb, _ := e.m.History(e.sid("bo")); len(hb) != 2 {
		t.Errorf("a small idle session was touched: %v", roles(hb))
	}
	if n := len(e.ev.named(beamclaw.EventMaintenanceCompactComplete)); n != 1 {
		t.Errorf("%d maintenance_compact_complete events, want 1", n)
	}
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(e.ev.named(beamclaw.EventMaintenanceCompactComplete)); n != 1 {
		t.Errorf("compacted again without activity: %d events", n)
	}
	// Maintenance is not activity: the session's TTL still counts from its last message.
	sums, _ := e.m.List(Filter{UserID: "ana"})
	if len(sums) != 1 || !sums[0].Updated.Before(fc.Now().Add(-10*time.Minute)) {
		t.Errorf("compaction moved the session's last activity: %+v", sums)
	}
}

// Inside the quiet hours, sessions with enough new messages are flushed
// and compacted once a night; outside them, or the same night again,
// nothing happens.
func TestMaintenanceNightly(t *testing.T) {
	e, fc, notes := maintEnv(t, MaintenanceOptions{Scan: 24 * time.Hour, QuietHours: [2]int{2, 4},
		NightlyMinMessages: 4, IdleThresholdPct: 80, IdleTargetPct: 50}, time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC))
	for _, q := range []string{"one", "two"} {
		rec, _ := e.send(t, "ana", q)
		rec.wait(t)
	}
	rec, _ := e.send(t, "bo", "only one")
	rec.wait(t)
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	if err := e.m.maintainOnce(context.Background()); err != nil { // 22:00: not quiet
		t.Fatal(err)
	}
	if len(notes()) != 0 {
		t.Fatal("flushed outside the quiet hours")
	}
	fc.Advance(5 * time.Hour) // 03:00
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := notes(); len(got) != 1 || got[0] != "- a durable fact" {
		t.Fatalf("nightly flushes: %q (want ana's session only)", got)
	}
	start := e.ev.named(beamclaw.EventMaintenanceNightlyStart)
	done := e.ev.named(beamclaw.EventMaintenanceNightlyComplete)
	if len(start) != 1 || attrInt(start[0], "session_count") != 1 || len(done) != 1 || attrInt(done[0], "flushed_count") != 1 {
		t.Errorf("nightly events: start %+v, complete %+v", start, done)
	}
	fc.Advance(30 * time.Minute)
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(notes()) != 1 {
		t.Error("a second nightly pass the same night")
	}
}
