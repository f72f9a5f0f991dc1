package session

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

func TestID(t *testing.T) {
	cases := []struct {
		name       string
		a, b       [3]string
		perChannel bool
		same       bool
	}{
		{"shared across channels", [3]string{"local:ana", "default", "tui"}, [3]string{"local:ana", "default", "telegram"}, false, true},
		{"per channel splits", [3]string{"local:ana", "default", "tui"}, [3]string{"local:ana", "default", "telegram"}, true, false},
		{"other agent", [3]string{"local:ana", "default", "tui"}, [3]string{"local:ana", "coder", "tui"}, false, false},
		{"no separator ambiguity", [3]string{"ab", "c", ""}, [3]string{"a", "bc", ""}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := ID(tc.a[0], tc.a[1], beamclaw.Channel(tc.a[2]), tc.perChannel)
			b := ID(tc.b[0], tc.b[1], beamclaw.Channel(tc.b[2]), tc.perChannel)
			if (a == b) != tc.same {
				t.Errorf("ids %s and %s: same=%v, want %v", a, b, a == b, tc.same)
			}
			if !strings.HasPrefix(a, "session-") || len(a) != idLen {
				t.Errorf("id %q malformed", a)
			}
		})
	}
}

func TestUserID(t *testing.T) {
	cases := []struct{ prefix, id, canonical, want string }{
		{"tg", "123", "", "tg:123"},
		{"api:", "bob", "", "api:bob"},
		{"ws", "x", "ana", "ana"},
	}
	for _, tc := range cases {
		if got := UserID(tc.prefix, tc.id, tc.canonical); got != tc.want {
			t.Errorf("UserID(%q, %q, %q) = %q, want %q", tc.prefix, tc.id, tc.canonical, got, tc.want)
		}
	}
}

func TestSharedSessionRoutesPerRun(t *testing.T) {
	for _, perChannel := range []bool{false, true} {
		t.Run(fmt.Sprint("per_channel=", perChannel), func(t *testing.T) {
			e := newEnv(t, envOpts{session: func(o *Options) { o.PerChannel = perChannel }})
			tui, _ := e.send(t, "ana", "from tui")
			tui.wait(t)
			tg, _ := e.send(t, "ana", "from telegram", func(in *beamclaw.Inbound) { in.Channel = "telegram" })
			if ev := tg.wait(t); ev.Text != "echo: from telegram" {
				t.Errorf("telegram route got %q", ev.Text)
			}
			if n := len(tui.terminals()); n != 1 {
				t.Errorf("tui route got %d terminal events, want 1", n)
			}
			want := 1
			if perChannel {
				want = 2
			}
			if got := e.m.Stats().Stored; got != want {
				t.Errorf("%d sessions stored, want %d", got, want)
			}
		})
	}
}

func TestHibernateAndRevive(t *testing.T) {
	e := newEnv(t, envOpts{session: func(o *Options) { o.IdleHibernate = time.Millisecond }})
	r, _ := e.send(t, "local:ana", "one")
	r.wait(t)
	// The event is emitted just after the lane leaves the live set.
	waitUntil(t, "hibernation", func() bool { return e.m.Stats().Live == 0 && len(e.ev.Named("session_hibernated")) > 0 })
	if s := e.m.Stats(); s.Hibernated != 1 {
		t.Errorf("stats %+v, want 1 hibernated", s)
	}
	if !e.m.Exists(e.sid("local:ana")) || e.m.Exists("never-seen") {
		t.Error("Exists: a hibernated session must exist, an unknown one must not")
	}
	if n := len(e.ev.Named("session_hibernated")); n != 1 {
		t.Errorf("%d session_hibernated events", n)
	}
	info, err := e.m.Info(e.sid("local:ana"))
	if err != nil || info.Live || info.Messages != 2 || info.Window != 128000 {
		t.Errorf("Info = %+v, %v", info, err)
	}
	r2, _ := e.send(t, "local:ana", "two")
	r2.wait(t)
	reqs := e.p.requests()
	want := []string{"user:one", "assistant:echo: one", "user:two"}
	if diff := cmp.Diff(want, roles(reqs[len(reqs)-1].Messages)); diff != "" {
		t.Errorf("revived session sent (-want +got):\n%s", diff)
	}
	if n := len(e.ev.Named("session_restored")); n != 1 {
		t.Errorf("%d session_restored events, want 1", n)
	}
}

func TestCleanerArchivesThenRetentionDeletes(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	e := newEnv(t, envOpts{session: func(o *Options) {
		o.Clock, o.TTL, o.Retention, o.CleanupInterval = clk, time.Hour, 24*time.Hour, 1000*time.Hour // Expire is called here
	}})
	archived := func(id string) bool {
		all, err := e.m.List(Filter{Archived: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range all {
			if s.ID == id {
				return !s.Archived.IsZero()
			}
		}
		return false
	}
	old, fresh := e.sid("local:old"), e.sid("local:new")
	r, _ := e.send(t, "local:old", "one")
	r.wait(t)
	clk.Advance(30 * time.Minute)
	r, _ = e.send(t, "local:new", "two")
	r.wait(t)
	clk.Advance(31 * time.Minute) // old: 61 min idle, new: 31 min
	e.waitIdle(t, old)
	e.waitIdle(t, fresh)
	expire := func(wantArchived, wantDeleted int) {
		t.Helper()
		a, d, err := e.m.Expire(context.Background())
		if err != nil || a != wantArchived || d != wantDeleted {
			t.Fatalf("Expire: archived %d deleted %d (%v), want %d and %d", a, d, err, wantArchived, wantDeleted)
		}
	}
	expire(1, 0)
	if !archived(old) {
		t.Fatal("the idle session is not archived")
	}

	if e.m.Exists(old) || !e.m.Exists(fresh) {
		t.Error("Exists: an archived session counts as gone (its sandbox may go), the live one as there")
	}

	// Archived, not gone: its history is kept, listings leave it out
	// unless asked, and its next message makes it active again.
	if h, err := e.m.History(old); err != nil || len(h) != 2 {
		t.Fatalf("archived session History: %d messages, %v", len(h), err)
	}
	if active, _ := e.m.List(Filter{}); len(active) != 1 || active[0].ID != fresh || active[0].Title != "two" {
		t.Errorf("active sessions %+v, want only the fresh one", active)
	}
	r, _ = e.send(t, "local:old", "back again")
	if ev := r.wait(t); ev.Type != beamclaw.EvFinal {
		t.Fatalf("message to an archived session: %+v", ev)
	}
	if archived(old) || !e.m.Exists(old) {
		t.Error("a message did not make the archived session active")
	}
	if h, _ := e.m.History(old); len(h) != 4 {
		t.Errorf("resumed session holds %d messages, want 4", len(h))
	}

	// Past the retention an archive is deleted.
	waitUntil(t, "the resumed run to finish", func() bool { return e.m.activeCount() == 0 })
	clk.Advance(61 * time.Minute)
	expire(2, 0) // both idle now
	clk.Advance(25 * time.Hour)
	expire(0, 2)
	if _, err := e.m.History(old); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("History past the retention: %v, want not found", err)
	}
}

func TestResetAndDedup(t *testing.T) {
	e := newEnv(t, envOpts{})
	r, runID := e.send(t, "local:ana", "one", func(in *beamclaw.Inbound) { in.MessageID = "m1" })
	r.wait(t)
	again := newRecorder()
	prev, err := e.m.Send(context.Background(), beamclaw.Inbound{Channel: "tui", UserID: "local:ana",
		AgentID: "default", MessageID: "m1", Content: "one", Route: again})
	if err != nil || prev != runID {
		t.Errorf("duplicate Send = %q, %v; want %q", prev, err, runID)
	}
	if ev := again.wait(t); ev.Text != "echo: one" {
		t.Errorf("the resend was answered %q, want the stored answer", ev.Text)
	}
	sid := e.sid("local:ana")
	if err := e.m.Reset(context.Background(), sid); err != nil {
		t.Fatal(err)
	}
	if h, _ := e.m.History(sid); len(h) != 0 {
		t.Errorf("history after reset: %v", roles(h))
	}
	if n := len(e.ev.Named("session_reset")); n != 1 {
		t.Errorf("%d session_reset events", n)
	}
	if err := e.m.Reset(context.Background(), e.sid("local:nobody")); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("Reset unknown: %v", err)
	}
}

func TestMemoryOnly(t *testing.T) {
	e := newEnv(t, envOpts{session: func(o *Options) {
		o.Persist, o.DB, o.IdleHibernate = false, nil, time.Millisecond
	}})
	r, _ := e.send(t, "local:ana", "one")
	r.wait(t)
	waitUntil(t, "hibernation", func() bool { return e.m.Stats().Live == 0 })
	r, _ = e.send(t, "local:ana", "two")
	r.wait(t)
	h, _ := e.m.History(e.sid("local:ana"))
	if len(h) != 4 {
		t.Errorf("history %v", roles(h))
	}
}

func TestThousandSessionsHibernateWithoutLeaks(t *testing.T) {
	base := runtime.NumGoroutine()
	e := newEnv(t, envOpts{session: func(o *Options) { o.IdleHibernate = time.Millisecond }})
	const n = 1000
	recs := make([]*recorder, n)
	for i := range n {
		recs[i], _ = e.send(t, fmt.Sprintf("local:u%d", i), "hi")
	}
	for _, r := range recs {
		if ev := r.wait(t); ev.Type != beamclaw.EvFinal {
			t.Fatalf("got %s %q", ev.Type, ev.Text)
		}
	}
	waitUntil(t, "all hibernated", func() bool { return e.m.Stats().Live == 0 })
	if s := e.m.Stats(); s.Hibernated != n {
		t.Errorf("stats %+v", s)
	}
	waitUntil(t, "goroutines to exit", func() bool { return runtime.NumGoroutine() <= base+4 })
	e.stop()
}

// A session waiting for its next message holds no goroutine: after the
// answers, the goroutines are back where they were.
func TestIdleSessionsHoldNoGoroutines(t *testing.T) {
	e := newEnv(t, envOpts{})
	r, _ := e.send(t, "local:warmup", "hello")
	r.wait(t)
	waitUntil(t, "the warm-up session parks", func() bool { return e.m.activeCount() == 0 })
	before := runtime.NumGoroutine()
	for i := range 200 {
		r, _ := e.send(t, fmt.Sprint("local:user-", i), "hello")
		r.wait(t)
	}
	waitUntil(t, "every session parks", func() bool { return e.m.activeCount() == 0 })
	if s := e.m.Stats(); s.Live != 201 {
		t.Fatalf("%d live sessions, want 201", s.Live)
	}
	if after := runtime.NumGoroutine(); after > before+5 {
		t.Errorf("200 idle sessions hold %d goroutines (before %d, after %d)", after-before, before, after)
	}
}

// At core.max_live_sessions a new session hibernates the least recently
// used idle one: the registry stays at the cap, and a hibernated session
// comes back with its history.
func TestMaxLiveSessions(t *testing.T) {
	e := newEnv(t, envOpts{session: func(o *Options) { o.MaxLive = 5 }})
	for i := range 30 {
		r, _ := e.send(t, fmt.Sprint("local:user-", i), "hello")
		r.wait(t)
		if s := e.m.Stats(); s.Live > 5 {
			t.Fatalf("after %d sessions: %d live, cap 5", i+1, s.Live)
		}
	}
	if n := len(e.ev.Named("session_hibernated")); n != 25 {
		t.Errorf("%d sessions hibernated, want 25", n)
	}
	r, _ := e.send(t, "local:user-0", "again")
	r.wait(t)
	h, _ := e.m.History(e.sid("local:user-0"))
	if len(h) != 4 {
		t.Errorf("the revived session has %d messages, want 4", len(h))
	}
}
