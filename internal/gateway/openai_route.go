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
	case beamclaw.EvFinal, beamclaw.EvError, beamclaw.EvToolStart, beamclaw.EvToolResult, beamclaw.EvNeedsApproval,
		beamclaw.EvApprovalRequest, beamclaw.EvApprovalResult:
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

// deniedApprovals tracks the approval requests this route could not
// answer, so the final answer can say which tools were not run.
type deniedApprovals struct {
	order   []string          // approval ids, in request order
	pending map[string]string // approval id -> tool name, while not allowed
}

func (a *deniedApprovals) observe(ev beamclaw.RunEvent) {
	if ev.Type == beamclaw.EvNeedsApproval && ev.Tool != nil { // refused at once: nobody here can approve
		ev.Approval = &beamclaw.ApprovalRequest{ID: "call:" + ev.Tool.ID, ToolName: ev.Tool.Name}
		ev.Type = beamclaw.EvApprovalRequest
	}
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
