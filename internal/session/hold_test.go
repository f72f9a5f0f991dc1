package session

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// slowStore is the bbolt backend whose removals and archivings wait until
// the test releases them (a store slow to answer: JetStream electing a
// leader, a disk busy with a large file).
type slowStore struct {
	backend
	scan    bool // summaries wait (Expire's scan) instead
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func slowDown(e *env) *slowStore {
	s := &slowStore{backend: e.m.store, entered: make(chan struct{}), release: make(chan struct{})}
	e.m.store = s
	return s
}

// sendAway sends content as user from another goroutine; the channel gets
// the run's terminal event (or the refusal, as an EvError).
func sendAway(e *env, user, content string) <-chan beamclaw.RunEvent {
	out := make(chan beamclaw.RunEvent, 1)
	go func() {
		rec := newRecorder()
		in := beamclaw.Inbound{Channel: "tui", UserID: user, AgentID: "default", Content: content, Route: rec, Origin: testOrigin}
		if _, err := e.m.Send(context.Background(), in); err != nil {
			out <- beamclaw.RunEvent{Type: beamclaw.EvError, Text: err.Error()}
			return
		}
		<-rec.done
		out <- rec.terminals()[0]
	}()
	return out
}

// whileHeld checks, the store's write held up, that bob's message is
// answered meanwhile (what: what the store does); then it sends ana's,
// lets the write go, and returns ana's answer.
func (s *slowStore) whileHeld(t *testing.T, e *env, what string) <-chan beamclaw.RunEvent {
	t.Helper()
	<-s.entered
	select {
	case ev := <-sendAway(e, "bob", "meanwhile"):
		if ev.Type != beamclaw.EvFinal || ev.Text != "echo: meanwhile" {
			t.Fatalf("bob's answer while %s: %+v", what, ev)
		}
	case <-time.After(30 * time.Second):
		close(s.release)
		t.Fatalf("bob's message waited while %s", what)
	}
	ana := sendAway(e, "ana", "again")
	time.Sleep(200 * time.Millisecond) // her message reaches the hold (without it, it would revive her old conversation now)
	close(s.release)
	return ana
}

func (s *slowStore) wait() {
	s.once.Do(func() { close(s.entered) })
	<-s.release
}

func (s *slowStore) remove(ids []string) error {
	if !s.scan {
		s.wait()
	}
	return s.backend.remove(ids)
}

func (s *slowStore) setArchived(ids []string, at time.Time) error {
	if len(ids) > 0 && !s.scan {
		s.wait()
	}
	return s.backend.setArchived(ids, at)
}

func (s *slowStore) summaries() ([]Summary, error) {
	sums, err := s.backend.summaries()
	if s.scan {
		s.wait()
	}
	return sums, err
}

// A session being deleted holds only itself: another user's message is
// answered while the store is still removing it, and a message for the
// deleted session waits for the removal, then starts a new conversation
// (nothing of the old one comes back, nothing of the new one is lost).
func TestDeleteHoldsOnlyItsSession(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, u := range []string{"ana", "bob"} {
		r, _ := e.send(t, u, "first")
		r.wait(t)
		e.waitIdle(t, e.sid(u))
	}
	slow := slowDown(e)
	deleted := make(chan error, 1)
	go func() { deleted <- e.m.Delete(context.Background(), e.sid("ana")) }()
	ana := slow.whileHeld(t, e, "ana's session was deleted")
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if ev := <-ana; ev.Type != beamclaw.EvFinal || ev.Text != "echo: again" {
		t.Fatalf("ana's message after the deletion: %+v", ev)
	}
	h, err := e.m.History(e.sid("ana"))
	if err != nil || len(h) != 2 || h[0].Content != "again" {
		t.Fatalf("ana's session after the deletion holds %+v (%v); want only her new message and its answer", h, err)
	}
}

// Expiry holds only the sessions it deletes: another user's message is
// answered while the store removes an old archive, and a message for
// that archive waits, then starts a new conversation that stays (without
// the hold it revived the archive, and the removal took her new message
// with it).
func TestExpireHoldsOnlyItsSessions(t *testing.T) {
	e, slow := archivedPastRetention(t, false)
	deleted := expireAway(t, e)
	ana := slow.whileHeld(t, e, "ana's archive was deleted")
	if d := <-deleted; d != 1 {
		t.Fatalf("%d deleted, want ana's archive", d)
	}
	if ev := <-ana; ev.Type != beamclaw.EvFinal || ev.Text != "echo: again" {
		t.Fatalf("ana's message after the deletion: %+v", ev)
	}
	e.waitIdle(t, e.sid("ana"))
	if h, err := e.m.History(e.sid("ana")); err != nil || len(h) != 2 || h[0].Content != "again" {
		t.Fatalf("ana's session holds %+v (%v), want her new message and its answer", h, err)
	}
}

// An archive past its retention that a message revived after expiry's
// scan is kept, with that message: expiry deletes no live session.
func TestExpireKeepsAnArchiveRevivedSinceItsScan(t *testing.T) {
	e, slow := archivedPastRetention(t, true)
	deleted := expireAway(t, e)
	<-slow.entered
	ana := sendAway(e, "ana", "again")
	if ev := <-ana; ev.Type != beamclaw.EvFinal || ev.Text != "echo: again" {
		t.Fatalf("ana's message: %+v", ev)
	}
	close(slow.release)
	if d := <-deleted; d != 0 {
		t.Fatalf("%d deleted, want none: ana's session is live again", d)
	}
	if h, err := e.m.History(e.sid("ana")); err != nil || len(h) != 4 {
		t.Fatalf("ana's session holds %d messages (%v), want her whole conversation", len(h), err)
	}
}

// archivedPastRetention is a Manager whose session of ana was archived
// longer ago than the retention and bob's is fresh, its store slowed
// down (scan: its listing for Expire, else its writes).
func archivedPastRetention(t *testing.T, scan bool) (*env, *slowStore) {
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	e := newEnv(t, envOpts{session: func(o *Options) {
		o.Clock, o.TTL, o.Retention, o.CleanupInterval = clk, time.Hour, 24*time.Hour, 1000*time.Hour // Expire is called here
	}})
	r, _ := e.send(t, "ana", "first")
	r.wait(t)
	e.waitIdle(t, e.sid("ana"))
	clk.Advance(61 * time.Minute)
	if a, _, err := e.m.Expire(context.Background()); err != nil || a != 1 {
		t.Fatalf("Expire archived %d (%v), want ana's session", a, err)
	}
	clk.Advance(25 * time.Hour) // past the retention
	r, _ = e.send(t, "bob", "first")
	r.wait(t)
	e.waitIdle(t, e.sid("bob"))
	slow := slowDown(e)
	slow.scan = scan
	return e, slow
}

// expireAway runs Expire from another goroutine; the channel gets how
// many sessions it deleted.
func expireAway(t *testing.T, e *env) <-chan int {
	deleted := make(chan int, 1)
	go func() {
		_, d, err := e.m.Expire(context.Background())
		if err != nil {
			t.Error(err)
		}
		deleted <- d
	}()
	return deleted
}
