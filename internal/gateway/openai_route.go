package gateway

import (
	"fmt"
	"strings"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// chatRoute is the beamclaw.Route of one HTTP request. Deliver never
// blocks: it queues the event and wakes the handler. Once the handler is
// gone (close), events are dropped; a run that outlives its request goes
// on in the daemon and is persisted, only this reply is lost.
type chatRoute struct {
	chunks bool          // keep EvChunk events (streaming requests)
	wake   chan struct{} // capacity 1: "the queue changed"

	mu     sync.Mutex
	queue  []beamclaw.RunEvent
	err    error // why the run failed without a terminal event
	ended  bool
	closed bool
}

var _ beamclaw.Route = (*chatRoute)(nil)

func newChatRoute(chunks bool) *chatRoute {
	return &chatRoute{chunks: chunks, wake: make(chan struct{}, 1)}
}

// Deliver queues the events this route answers with; state and tool
// progress stay inside the daemon.
func (r *chatRoute) Deliver(ev beamclaw.RunEvent) {
	switch ev.Type {
	case beamclaw.EvChunk:
		if !r.chunks {
			return
		}
	case beamclaw.EvFinal, beamclaw.EvError, beamclaw.EvToolStart,
		beamclaw.EvApprovalRequest, beamclaw.EvApprovalResult:
	default:
		return
	}
	r.mu.Lock()
	if r.closed || r.ended {
		r.mu.Unlock()
		return
	}
	r.ended = ev.Terminal()
	r.queue = append(r.queue, ev)
	r.mu.Unlock()
	r.signal()
}

// fail ends the run with err unless a terminal event already came.
func (r *chatRoute) fail(err error) {
	r.mu.Lock()
	if r.closed || r.ended {
		r.mu.Unlock()
		return
	}
	r.ended, r.err = true, err
	r.queue = append(r.queue, beamclaw.RunEvent{Type: beamclaw.EvError, Text: beamclaw.UserMessage(err)})
	r.mu.Unlock()
	r.signal()
}

func (r *chatRoute) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// take moves the queued events into buf and returns them, with the error
// a synthetic EvError stands for (nil for the run's own).
func (r *chatRoute) take(buf []beamclaw.RunEvent) ([]beamclaw.RunEvent, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	buf = append(buf[:0], r.queue...)
	clear(r.queue)
	r.queue = r.queue[:0]
	return buf, r.err
}

// close drops every later event.
func (r *chatRoute) close() {
	r.mu.Lock()
	r.closed = true
	r.queue = nil
	r.mu.Unlock()
}

// deniedApprovals tracks the approval requests this route could not
// answer, so the final answer can say which tools were not run.
type deniedApprovals struct {
	order   []string          // approval ids, in request order
	pending map[string]string // approval id -> tool name, while not allowed
}

func (a *deniedApprovals) observe(ev beamclaw.RunEvent) {
	if ev.Approval == nil {
		return
	}
	switch ev.Type {
	case beamclaw.EvApprovalRequest:
		if a.pending == nil {
			a.pending = make(map[string]string)
		}
		a.order = append(a.order, ev.Approval.ID)
		a.pending[ev.Approval.ID] = ev.Approval.ToolName
	case beamclaw.EvApprovalResult:
		if d := beamclaw.Decision(ev.Text); d == beamclaw.Allow || d == beamclaw.Always {
			delete(a.pending, ev.Approval.ID)
		}
	}
}

// note is what the answer gains: one line per tool that needed approval
// and did not get it ("" when none).
func (a *deniedApprovals) note() string {
	var b strings.Builder
	for _, id := range a.order {
		name, ok := a.pending[id]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "\n\n(The tool %s needed approval, which cannot be given over the OpenAI-compatible API, so it was denied.)", name)
	}
	return b.String()
}
