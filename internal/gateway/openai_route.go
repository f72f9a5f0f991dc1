package gateway

import (
	"fmt"
	"strings"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/runqueue"
)

// chatRoute is the beamclaw.Route of one HTTP request. Deliver never
// blocks: it queues the event and wakes the handler. Once the handler is
// gone (close), events are dropped; a run that outlives its request goes
// on in the daemon and is persisted, only this reply is lost.
type chatRoute struct {
	chunks bool // keep EvChunk events (streaming requests)

	mu  sync.Mutex
	q   runqueue.Queue
	err error // why the run failed without a terminal event
}

var _ beamclaw.Route = (*chatRoute)(nil)

func newChatRoute(chunks bool) *chatRoute {
	return &chatRoute{chunks: chunks, q: runqueue.New(0)}
}

// Deliver queues the events this route answers with (tool activity, which
// the Responses API reports as output items); state stays inside the
// daemon.
func (r *chatRoute) Deliver(ev beamclaw.RunEvent) {
	switch ev.Type {
	case beamclaw.EvChunk:
		if !r.chunks {
			return
		}
	case beamclaw.EvFinal, beamclaw.EvError, beamclaw.EvToolStart, beamclaw.EvToolResult, beamclaw.EvNeedsApproval:
	default:
		return
	}
	r.mu.Lock()
	r.q.Push(ev)
	r.mu.Unlock()
}

// fail ends the run with err unless a terminal event already came.
func (r *chatRoute) fail(err error) {
	r.mu.Lock()
	if r.q.Push(beamclaw.RunEvent{Type: beamclaw.EvError, Text: beamclaw.UserMessage(err)}) {
		r.err = err
	}
	r.mu.Unlock()
}

// wake receives a value when events were queued.
func (r *chatRoute) wake() <-chan struct{} { return r.q.Wake() }

// take moves the queued events into buf and returns them, with the error
// a synthetic EvError stands for (nil for the run's own).
func (r *chatRoute) take(buf []beamclaw.RunEvent) ([]beamclaw.RunEvent, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.q.Take(buf), r.err
}

// close drops every later event.
func (r *chatRoute) close() {
	r.mu.Lock()
	r.q.Close()
	r.mu.Unlock()
}

// deniedTools lists the tools a run on this route did not run for want
// of an approval, which nobody on the OpenAI-compatible APIs can give
// (EvNeedsApproval), so the final answer can say so.
type deniedTools []string

func (d *deniedTools) observe(ev beamclaw.RunEvent) {
	if ev.Type == beamclaw.EvNeedsApproval && ev.Tool != nil {
		*d = append(*d, ev.Tool.Name)
	}
}

// note is what the answer gains: one line per tool that needed approval
// ("" when none).
func (d deniedTools) note() string {
	var b strings.Builder
	for _, name := range d {
		fmt.Fprintf(&b, "\n\n(The tool %s needed approval, which cannot be given over the OpenAI-compatible API, so it was denied.)", name)
	}
	return b.String()
}
