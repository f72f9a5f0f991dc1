package session

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// panicOnText streams a chunk, then panics inside onText once release is
// closed, simulating a loop crash mid-stream.
func panicOnText(release <-chan struct{}) step {
	return func(ctx context.Context, _ beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
		<-release
		onText("partial answer that will never finish ")
		(func(string))(nil)("boom") // nil func call: a runtime panic inside the stream
		return beamclaw.ChatResponse{}, nil
	}
}

func TestCrashMidStreamRetriesAndServesQueueInOrder(t *testing.T) {
	e := newEnv(t, envOpts{})
	release := make(chan struct{})
	e.p.add(panicOnText(release))
	r1, _ := e.send(t, "local:ana", "one")
	r2, _ := e.send(t, "local:ana", "two")
	r3, _ := e.send(t, "local:ana", "three")
	close(release)
	for i, r := range []*recorder{r1, r2, r3} {
		ev := r.wait(t)
		want := "echo: " + []string{"one", "two", "three"}[i]
		if ev.Type != beamclaw.EvFinal || ev.Text != want {
			t.Errorf("run %d ended with %s %q, want final %q", i+1, ev.Type, ev.Text, want)
		}
		if n := len(r.terminals()); n != 1 {
			t.Errorf("run %d got %d terminal events, want 1", i+1, n)
		}
	}
	h, err := e.m.History(e.sid("local:ana"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user:one", "assistant:echo: one", "user:two", "assistant:echo: two",
		"user:three", "assistant:echo: three"}
	if diff := cmp.Diff(want, roles(h)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

func TestCrashTwiceAnswersOneError(t *testing.T) {
	e := newEnv(t, envOpts{})
	release := make(chan struct{})
	close(release)
	e.p.add(panicOnText(release), panicOnText(release))
	r1, _ := e.send(t, "local:ana", "one")
	ev := r1.wait(t)
	if ev.Type != beamclaw.EvError || ev.Text != msgCrashed {
		t.Fatalf("got %s %q, want error %q", ev.Type, ev.Text, msgCrashed)
	}
	r2, _ := e.send(t, "local:ana", "two")
	if ev := r2.wait(t); ev.Text != "echo: two" {
		t.Errorf("next run got %q", ev.Text)
	}
	if n := len(r1.terminals()); n != 1 {
		t.Errorf("crashed run got %d terminal events, want 1", n)
	}
	h, _ := e.m.History(e.sid("local:ana"))
	want := []string{"user:one", "user:two", "assistant:echo: two"}
	if diff := cmp.Diff(want, roles(h)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

func TestRestartRestoresHistory(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, s := range []string{"one", "two"} {
		r, _ := e.send(t, "local:ana", s)
		r.wait(t)
	}
	path := e.path
	e.stop()

	e2 := newEnv(t, envOpts{path: path})
	r, _ := e2.send(t, "local:ana", "three")
	if ev := r.wait(t); ev.Text != "echo: three" {
		t.Fatalf("got %q", ev.Text)
	}
	reqs := e2.p.requests()
	want := []string{"user:one", "assistant:echo: one", "user:two", "assistant:echo: two", "user:three"}
	if diff := cmp.Diff(want, roles(reqs[0].Messages)); diff != "" {
		t.Errorf("provider saw (-want +got):\n%s", diff)
	}
	restored := e2.ev.Named("session_restored")
	if len(restored) != 1 || attrInt(restored[0], "message_count") != 4 {
		t.Errorf("session_restored events %+v, want one with message_count 4", restored)
	}
}

func TestPendingMessagesSurviveStop(t *testing.T) {
	e := newEnv(t, envOpts{})
	block := e.p.addHang()
	r1, _ := e.send(t, "local:ana", "one")
	<-block
	r2, _ := e.send(t, "local:ana", "two")
	path := e.path
	e.stop()
	for _, r := range []*recorder{r1, r2} {
		if ev := r.wait(t); ev.Type != beamclaw.EvError || ev.Text != msgStopped {
			t.Errorf("got %s %q, want error %q", ev.Type, ev.Text, msgStopped)
		}
	}
	e2 := newEnv(t, envOpts{path: path})
	h, err := e2.m.History(e2.sid("local:ana"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"user:one", "user:two"}, roles(h)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

// A message id resent after a restart, past more messages than any
// in-memory window holds, is answered from the stored answer and never
// reaches the model again.
func TestResendAfterRestartNeverRunsTwice(t *testing.T) {
	e := newEnv(t, envOpts{})
	r, first := e.send(t, "local:ana", "the first", func(in *beamclaw.Inbound) { in.MessageID = "m-first" })
	r.wait(t)
	for i := range 20 {
		r, _ := e.send(t, "local:ana", fmt.Sprint("other ", i), func(in *beamclaw.Inbound) { in.MessageID = fmt.Sprint("m-", i) })
		r.wait(t)
	}
	path := e.path
	e.stop()

	e2 := newEnv(t, envOpts{path: path})
	again, runID := e2.send(t, "local:ana", "the first", func(in *beamclaw.Inbound) { in.MessageID = "m-first" })
	if ev := again.wait(t); ev.Type != beamclaw.EvFinal || ev.Text != "echo: the first" {
		t.Errorf("resend answered %s %q, want the stored answer", ev.Type, ev.Text)
	}
	if runID != first {
		t.Errorf("resend got run %s, want the first run %s", runID, first)
	}
	if n := len(e2.p.requests()); n != 0 {
		t.Errorf("the model was asked %d times for a resent message", n)
	}
	if h, _ := e2.m.History(e2.sid("local:ana")); len(h) != 42 {
		t.Errorf("history holds %d messages, want 42 (nothing stored twice)", len(h))
	}
}

// A message stored but cut off mid-answer by a stop is answered once when
// the client sends it again after the restart, and not stored twice.
func TestResendOfInterruptedMessageAnswersOnce(t *testing.T) {
	e := newEnv(t, envOpts{})
	block := e.p.addHang()
	r, _ := e.send(t, "local:ana", "cut off", func(in *beamclaw.Inbound) { in.MessageID = "m-cut" })
	<-block
	path := e.path
	e.stop()
	r.wait(t)

	e2 := newEnv(t, envOpts{path: path})
	again, _ := e2.send(t, "local:ana", "cut off", func(in *beamclaw.Inbound) { in.MessageID = "m-cut" })
	if ev := again.wait(t); ev.Type != beamclaw.EvFinal || ev.Text != "echo: cut off" {
		t.Fatalf("resend answered %s %q", ev.Type, ev.Text)
	}
	third, _ := e2.send(t, "local:ana", "cut off", func(in *beamclaw.Inbound) { in.MessageID = "m-cut" })
	if ev := third.wait(t); ev.Text != "echo: cut off" {
		t.Errorf("second resend answered %q", ev.Text)
	}
	if n := len(e2.p.requests()); n != 1 {
		t.Errorf("the model was asked %d times, want once", n)
	}
	h, _ := e2.m.History(e2.sid("local:ana"))
	if diff := cmp.Diff([]string{"user:cut off", "assistant:echo: cut off"}, roles(h)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

// The window of remembered ids is bounded by count and age, and what
// leaves it is deleted from the store too.
func TestSeenWindowIsBounded(t *testing.T) {
	l := &lane{}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range seenMax {
		l.remember(seenID{ID: fmt.Sprint(i), At: now})
	}
	if got := l.expiring(now); len(got) != 1 || got[0] != "0" {
		t.Errorf("adding one to a full window expires %v, want the oldest", got)
	}
	if got := l.expiring(now.Add(seenTTL)); len(got) != seenMax {
		t.Errorf("a day later %d ids expire, want all %d", len(got), seenMax)
	}
}

// A message id that comes again with another digest (an Idempotency-Key
// reused for a different body) is refused with ErrMessageReused, after a
// restart too; the same digest still gets the first answer, and an id
// sent without a digest is not compared (issue 23, item 9).
func TestResendWithAnotherDigestIsRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	withID := func(digest string) func(*beamclaw.Inbound) {
		return func(in *beamclaw.Inbound) { in.MessageID, in.MessageDigest = "k1", digest }
	}
	r, first := e.send(t, "local:ana", "the first", withID("d1"))
	r.wait(t)
	path := e.path
	e.stop()

	e2 := newEnv(t, envOpts{path: path})
	_, err := e2.m.Send(context.Background(), beamclaw.Inbound{Channel: "tui", UserID: "local:ana", AgentID: "default",
		MessageID: "k1", MessageDigest: "d2", Content: "another", Route: newRecorder()})
	if !errors.Is(err, beamclaw.ErrMessageReused) || beamclaw.KindOf(err) != beamclaw.KindConflict {
		t.Fatalf("resend with another digest: %v (kind %s), want ErrMessageReused, conflict", err, beamclaw.KindOf(err))
	}
	for _, digest := range []string{"d1", ""} {
		again, runID := e2.send(t, "local:ana", "the first", withID(digest))
		if ev := again.wait(t); ev.Type != beamclaw.EvFinal || ev.Text != "echo: the first" || runID != first {
			t.Errorf("resend with digest %q: run %s %s %q, want the first answer", digest, runID, ev.Type, ev.Text)
		}
	}
	if n := len(e2.p.requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
}
