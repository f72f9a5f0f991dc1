package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// httpAck sends as the OpenAI-compatible API does: the message is
// acknowledged only by its answer.
func httpAck(in *beamclaw.Inbound) {
	in.Channel, in.Origin, in.AckOnAnswer = beamclaw.ChannelHTTP, "", true
}

// A turn of a channel that acknowledges with the answer is one database
// write (its message and answer together); a channel that acknowledges on
// receipt keeps its message's own write first.
func TestAckOnAnswerTurnIsOneWrite(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, tc := range []struct {
		user string // a session of its own
		mods []func(*beamclaw.Inbound)
		want uint64
	}{
		{"ana", []func(*beamclaw.Inbound){httpAck}, 1},
		{"bo", nil, 2},
	} {
		rec, _ := e.send(t, tc.user, "one", tc.mods...) // creates the session
		rec.wait(t)
		waitUntil(t, tc.user+" idle", func() bool { return e.m.activeCount() == 0 })
		before := e.db.Commits()
		rec, _ = e.send(t, tc.user, "two", tc.mods...)
		ev := rec.wait(t)
		if ev.Type != beamclaw.EvFinal || ev.Text != "echo: two" {
			t.Fatalf("%s: %+v", tc.user, ev)
		}
		waitUntil(t, tc.user+" idle", func() bool { return e.m.activeCount() == 0 })
		if n := e.db.Commits() - before; n != tc.want {
			t.Errorf("%s: a turn took %d commits, want %d", tc.user, n, tc.want)
		}
		h, err := e.m.History(ev.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if got := roles(h); len(got) != 4 {
			t.Errorf("%s: history %v", tc.user, got)
		}
	}
}

// A message that arrives while the session is still answering the
// previous one waits in memory, not in the pending area: back-to-back
// turns of the OpenAI API are one write each, in order.
func TestAckOnAnswerQueuedTurnIsOneWrite(t *testing.T) {
	e := newEnv(t, envOpts{})
	rec, _ := e.send(t, "ana", "zero", httpAck)
	rec.wait(t)
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	hold := make(chan struct{})
	e.p.add(func(ctx context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
		<-hold // the first answer waits until the second message is queued
		return echo(ctx, req, onText)
	})
	before := e.db.Commits()
	first, _ := e.send(t, "ana", "one", httpAck)
	second, _ := e.send(t, "ana", "two", httpAck)
	close(hold)
	first.wait(t)
	if ev := second.wait(t); ev.Text != "echo: two" {
		t.Fatalf("second answer: %+v", ev)
	}
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	if n := e.db.Commits() - before; n != 2 {
		t.Errorf("two queued turns took %d commits, want 2", n)
	}
	h, _ := e.m.History(ID("ana", "default", beamclaw.ChannelHTTP, false))
	var contents []string
	for _, m := range h {
		contents = append(contents, m.Content)
	}
	if got := strings.Join(contents, "|"); got != "zero|echo: zero|one|echo: one|two|echo: two" {
		t.Errorf("history %s", got)
	}
}

// A run that fails before writing anything still stores its message (as
// every channel does), and a restart finds it.
func TestAckOnAnswerFailedRunKeepsItsMessage(t *testing.T) {
	path := t.TempDir() + "/beamclaw.db"
	e := newEnv(t, envOpts{path: path})
	e.p.add(func(context.Context, beamclaw.ChatRequest, func(string)) (beamclaw.ChatResponse, error) {
		return beamclaw.ChatResponse{}, beamclaw.E("test", beamclaw.KindInvalid, "the model refused", errors.New("400"))
	})
	rec, _ := e.send(t, "ana", "will fail", httpAck)
	if ev := rec.wait(t); ev.Type != beamclaw.EvError {
		t.Fatalf("want an error, got %+v", ev)
	}
	waitUntil(t, "idle", func() bool { return e.m.activeCount() == 0 })
	e.stop()
	e2 := newEnv(t, envOpts{path: path})
	h, err := e2.m.History(ID("ana", "default", beamclaw.ChannelHTTP, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || h[0].Content != "will fail" {
		t.Errorf("history after the failed run and a restart: %+v", h)
	}
}
