package telegram

import (
	"context"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// typingEvery re-sends the typing action (Telegram shows it for 5 s).
const typingEvery = 4 * time.Second

// route is the beamclaw.Route of one run: Deliver only records what
// happened and wakes the route's worker, which talks to Telegram at its
// own pace (throttled edits, 429 waits) and never blocks the session.
type route struct {
	c    *Channel
	conv conv // the conversation the run answers
	wake chan struct{}

	mu sync.Mutex
	st routeState
}

type routeState struct {
	text    string              // the answer so far (Markdown)
	status  string              // tool activity line, "" when none
	waiting string              // what the queued message waits on (EvWaiting), until its run starts
	ctrl    []beamclaw.RunEvent // approval requests and results, in order
	done    bool                // a terminal event arrived
	failure string              // user-facing error of an EvError
	silent  bool                // end without a word (duplicate message)
}

var _ beamclaw.Route = (*route)(nil)

// newRoute starts the worker of a run's route; it ends with the run or
// with ctx (the service's context).
func (c *Channel) newRoute(ctx context.Context, cv conv) *route {
	r := &route{c: c, conv: cv, wake: make(chan struct{}, 1)}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		newStreamer(r).run(ctx)
	}()
	return r
}

// Deliver records ev. It never blocks.
func (r *route) Deliver(ev beamclaw.RunEvent) {
	r.mu.Lock()
	if r.st.done {
		r.mu.Unlock()
		return
	}
	if ev.Type != beamclaw.EvWaiting {
		r.st.waiting = "" // the run has started (or ended)
	}
	switch ev.Type {
	case beamclaw.EvWaiting:
		r.st.waiting = ev.Text
	case beamclaw.EvChunk:
		r.st.text += ev.Text
	case beamclaw.EvToolStart:
		if ev.Tool != nil {
			r.st.status = "🔧 " + ev.Tool.Name + "…"
		}
	case beamclaw.EvToolResult:
		r.st.status = ""
	case beamclaw.EvApprovalRequest, beamclaw.EvApprovalResult:
		if ev.Approval != nil {
			r.st.ctrl = append(r.st.ctrl, ev)
		}
	case beamclaw.EvElicitation, beamclaw.EvElicitResult:
		if ev.Elicit != nil {
			r.st.ctrl = append(r.st.ctrl, ev)
		}
	case beamclaw.EvFinal:
		if ev.Text != "" {
			r.st.text = ev.Text
		}
		r.st.done, r.st.status = true, ""
	case beamclaw.EvError:
		r.st.failure = ev.Text
		if r.st.failure == "" {
			r.st.failure = "Something went wrong."
		}
		r.st.done, r.st.status = true, ""
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// abort ends a run Sessions.Send refused: a duplicate ends silently, any
// other error is shown to the user.
func (r *route) abort(err error) {
	if beamclaw.KindOf(err) == beamclaw.KindConflict {
		r.mu.Lock()
		r.st.silent = true
		r.mu.Unlock()
		r.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal})
		return
	}
	r.c.log.Warn("send to session", "chat_id", r.conv.chat, "err", err)
	r.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, Text: beamclaw.UserMessage(err)})
}

// line is the status line shown under the answer: the tool at work, or
// what a queued message waits on (an approval of the run before it).
func (st routeState) line() string {
	if st.status == "" && st.waiting != "" {
		return "⏸ " + st.waiting
	}
	return st.status
}

// take returns the state and clears the control queue.
func (r *route) take() routeState {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.st
	r.st.ctrl = nil
	return st
}
