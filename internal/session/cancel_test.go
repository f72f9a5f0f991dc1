package session

import (
	"context"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestCancelStopsTheRunningAndTheQueuedRun(t *testing.T) {
	e := newEnv(t, envOpts{})
	started := make(chan struct{})
	aborted := make(chan error, 1)
	e.p.add(func(ctx context.Context, _ beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
		onText("thinking hard")
		close(started)
		<-ctx.Done() // held until canceled
		aborted <- ctx.Err()
		return beamclaw.ChatResponse{}, ctx.Err()
	})
	first, firstID := e.send(t, "ann", "long question")
	<-started
	second, secondID := e.send(t, "ann", "queued question")

	if err := e.m.Cancel(context.Background(), e.sid("ann"), secondID); err != nil {
		t.Fatalf("cancel queued: %v", err)
	}
	if err := e.m.Cancel(context.Background(), e.sid("ann"), firstID); err != nil {
		t.Fatalf("cancel running: %v", err)
	}
	if err := <-aborted; err == nil {
		t.Error("the model call was not aborted")
	}
	for _, r := range []*recorder{first, second} {
		if ev := r.wait(t); ev.Type != beamclaw.EvError || ev.Text != MsgCanceled {
			t.Errorf("terminal %+v, want the cancel error", ev)
		}
	}
	if err := e.m.Cancel(context.Background(), e.sid("ann"), firstID); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("cancel of an ended run: %v, want KindNotFound", err)
	}

	// The session goes on: the next message is answered.
	third, _ := e.send(t, "ann", "still there?")
	if ev := third.wait(t); ev.Type != beamclaw.EvFinal || ev.Text != "echo: still there?" {
		t.Errorf("after cancel: %+v", ev)
	}
}
