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
// path, when set, is the database of an earlier env (a restart).
func maintEnv(t *testing.T, mo MaintenanceOptions, at time.Time, path string) (*env, *clock.Fake, func() []string) {
	t.Helper()
	fc := clock.NewFake(at)
	var mu sync.Mutex
	var notes []string
	e := newEnv(t, envOpts{
		path:    path,
		session: func(o *Options) { o.Clock, o.Maintenance, o.TTL = fc, mo, 10*time.Hour },
		loop: func(o *loop.Options) {
			o.Clock = fc
			o.MemoryFlush = func(_ context.Context, _, _, n string) error {
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
		IdleThresholdPct: 1, IdleTargetPct: 1}, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), "")
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
	if n := len(e.ev.Named(beamclaw.EventMaintenanceCompactComplete)); n != 1 {
		t.Errorf("%d maintenance_compact_complete events, want 1", n)
	}
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(e.ev.Named(beamclaw.EventMaintenanceCompactComplete)); n != 1 {
		t.Errorf("compacted again without activity: %d events", n)
	}
	// Maintenance is not activity: the session's TTL still counts from its last message.
	sums, _ := e.m.List(Filter{UserID: "ana"})
	if len(sums) != 1 || !sums[0].Updated.Before(fc.Now().Add(-10*time.Minute)) {
		t.Errorf("compaction moved the session's last activity: %+v", sums)
	}
	// Nor after a restart: the compaction is remembered for the activity
	// it was done for (a second one would find the history below the
	// threshold and do nothing visible, so the mark itself is checked).
	path, mo := e.path, e.m.opts.Maintenance
	e.stop()
	e2, _, _ := maintEnv(t, mo, fc.Now(), path)
	marks, _, err := e2.m.store.maintained()
	if err != nil {
		t.Fatal(err)
	}
	if mk := marks[e2.sid("ana")]; !mk.Compacted.Equal(sums[0].Updated) {
		t.Errorf("the stored mark of ana's compaction: %+v, want it for %v", mk, sums[0].Updated)
	}
	if err := e2.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(e2.ev.Named(beamclaw.EventMaintenanceCompactComplete)); n != 0 {
		t.Errorf("compacted again after a restart: %d events", n)
	}
}

// Inside the quiet hours, sessions with enough new messages are flushed
// and compacted once a night; outside them, or the same night again,
// nothing happens.
func TestMaintenanceNightly(t *testing.T) {
	e, fc, notes := maintEnv(t, MaintenanceOptions{Scan: 24 * time.Hour, QuietHours: [2]int{2, 4},
		NightlyMinMessages: 4, IdleThresholdPct: 80, IdleTargetPct: 50}, time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC), "")
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
	start := e.ev.Named(beamclaw.EventMaintenanceNightlyStart)
	done := e.ev.Named(beamclaw.EventMaintenanceNightlyComplete)
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

// What maintenance did survives a restart: a session flushed before its
// expiry is not flushed again, and the night's pass does not run twice;
// a deleted session's marks go with it.
func TestMaintenanceRemembersAcrossRestart(t *testing.T) {
	mo := MaintenanceOptions{Scan: 24 * time.Hour, PreExpiry: time.Hour, QuietHours: [2]int{2, 4},
		NightlyMinMessages: 4, IdleThresholdPct: 80, IdleTargetPct: 50}
	e, fc, notes := maintEnv(t, mo, time.Date(2026, 11, 20, 17, 30, 0, 0, time.UTC), "")
	for _, q := range []string{"one", "two"} {
		rec, _ := e.send(t, "ana", q)
		rec.wait(t)
	}
	fc.Advance(9*time.Hour + 20*time.Minute) // 02:50
	for _, q := range []string{"three", "four"} {
		rec, _ := e.send(t, "bo", q)
		rec.wait(t)
	}
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	fc.Advance(10 * time.Minute) // 03:00: ana 9.5 h idle (TTL 10 h), bo's night
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(notes()); n != 2 {
		t.Fatalf("%d flushes before the restart, want ana's pre-expiry one and bo's nightly one", n)
	}
	if n := len(e.ev.Named(beamclaw.EventMaintenancePreExpiryFlush)); n != 1 {
		t.Fatalf("%d pre-expiry flush events", n)
	}
	path := e.path
	e.stop()

	e2, _, notes2 := maintEnv(t, mo, fc.Now().Add(5*time.Minute), path)
	if err := e2.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := notes2(); len(got) != 0 {
		t.Errorf("after a restart maintenance flushed again: %q", got)
	}
	if n := len(e2.ev.Named(beamclaw.EventMaintenanceNightlyStart)); n != 0 {
		t.Errorf("after a restart the night's pass ran again (%d start events)", n)
	}

	if err := e2.m.Delete(context.Background(), e2.sid("ana")); err != nil {
		t.Fatal(err)
	}
	// A maintenance run that ended as the session was deleted.
	e2.m.markMaintained(context.Background(), e2.sid("ana"), maintMark{Nightly: 9})
	marks, night, err := e2.m.store.maintained()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := marks[e2.sid("ana")]; ok || len(marks) != 1 || night != "2026-11-21" {
		t.Errorf("stored marks after ana's session was deleted: %+v, night %q", marks, night)
	}
}

// The nightly pass counts a session's new messages from what its
// compaction left, so the next night's pass needs only
// NightlyMinMessages new ones, not as many as the compaction removed too.
func TestMaintenanceNightlyCountsFromTheCompactedHistory(t *testing.T) {
	// Two nights: the service's own scan is further away still.
	e, fc, _ := maintEnv(t, MaintenanceOptions{Scan: 1000 * time.Hour, QuietHours: [2]int{2, 4},
		NightlyMinMessages: 4, IdleThresholdPct: 1, IdleTargetPct: 1}, time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC), "")
	long := strings.Repeat("a long message about the project plan. ", 200) // ~2,000 tokens
	for _, q := range []string{long, long, long} {
		rec, _ := e.send(t, "ana", q)
		rec.wait(t)
	}
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	fc.Advance(5 * time.Hour) // 03:00
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	flushedAt := func(night int) int {
		done := e.ev.Named(beamclaw.EventMaintenanceNightlyComplete)
		if len(done) <= night {
			return -1
		}
		return int(attrInt(done[night], "flushed_count"))
	}
	h, _ := e.m.History(e.sid("ana"))
	if flushedAt(0) != 1 || len(h) >= 6 {
		t.Fatalf("the first night: %d sessions maintained, %d messages left of 6", flushedAt(0), len(h))
	}
	fc.Advance(12 * time.Hour) // 15:00
	for _, q := range []string{"short one", "short two"} {
		rec, _ := e.send(t, "ana", q)
		rec.wait(t)
	}
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	fc.Advance(12 * time.Hour) // 03:00 the next night: four new messages
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := flushedAt(1); n != 1 {
		t.Errorf("the second night maintained %d sessions, want ana's: four new messages were not enough", n)
	}
}

// A nightly pass cut short by a stop does not count as the night's: the
// next scan of the night gives the sessions it had not reached their turn.
func TestMaintenanceNightlyCutShortRunsAgain(t *testing.T) {
	e, fc, _ := maintEnv(t, MaintenanceOptions{Scan: 24 * time.Hour, QuietHours: [2]int{2, 4},
		NightlyMinMessages: 2, IdleThresholdPct: 80, IdleTargetPct: 50}, time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC), "")
	for _, u := range []string{"ana", "bo"} {
		rec, _ := e.send(t, u, "hello")
		rec.wait(t)
	}
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	fc.Advance(5 * time.Hour) // 03:00
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var once sync.Once
	fact := say("- a durable fact")
	e.p.flush = func(c context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
		once.Do(stop) // the daemon stops during the pass's first flush
		return fact(c, req, onText)
	}
	if err := e.m.maintainOnce(ctx); err == nil {
		t.Fatal("a pass cut short by a stop returned no error")
	}
	if err := e.m.maintainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	marks, _, err := e.m.store.maintained()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"ana", "bo"} {
		if marks[e.sid(u)].Nightly == 0 {
			t.Errorf("%s's session had no nightly pass: %+v", u, marks)
		}
	}
	if n := len(e.ev.Named(beamclaw.EventMaintenanceNightlyComplete)); n != 1 {
		t.Errorf("%d nightly passes completed, want 1 (the one after the cut)", n)
	}
}

// One session busy with a long turn does not hold up the others: the
// scan leaves it for later and flushes the rest before their expiry
// (once a busy session stopped the scan, and the others were archived
// without their flush).
func TestMaintenanceSkipsABusySession(t *testing.T) {
	mo := MaintenanceOptions{Scan: 24 * time.Hour, PreExpiry: time.Hour}
	e, fc, notes := maintEnv(t, mo, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), "")
	asked := e.p.addHang()
	_, runID := e.send(t, "ana", "a turn that takes all day")
	<-asked
	for _, u := range []string{"bo", "cy", "dee"} {
		fc.Advance(time.Second)
		rec, _ := e.send(t, u, "remember "+u)
		rec.wait(t)
		// the final answer is out; the lane ends its run just after
		waitUntil(t, u+" idle", func() bool { return !e.m.busy(e.sid(u)) })
	}
	fc.Advance(9*time.Hour + 30*time.Minute) // everyone 9.5 h idle (TTL 10 h); ana's turn still runs
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.m.maintainOnce(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("the scan waited on the busy session until its context ended: %v", err)
	}
	if n := len(notes()); n != 3 {
		t.Fatalf("%d pre-expiry flushes, want bo's, cy's and dee's while ana's turn runs", n)
	}
	// Each was seen through and recorded (not left behind a scan that
	// gave up waiting, to be flushed again).
	if n := len(e.ev.Named(beamclaw.EventMaintenancePreExpiryFlush)); n != 3 {
		t.Fatalf("%d pre-expiry flushes recorded, want 3", n)
	}
	if err := e.m.Cancel(context.Background(), e.sid("ana"), runID); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "ana idle", func() bool { return !e.m.busy(e.sid("ana")) })
	if err := e.m.maintainOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(notes()); n != 4 || len(e.ev.Named(beamclaw.EventMaintenancePreExpiryFlush)) != 4 {
		t.Errorf("%d flushes once ana's turn ended, want hers too", n)
	}
}
