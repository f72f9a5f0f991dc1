package session

import (
	"context"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// onceRoute wraps a run's reply route: events after the terminal one are
// dropped, so a run is never answered twice, even when a crashed loop's
// run is retried or failed by the lane.
type onceRoute struct {
	mu    sync.Mutex
	r     beamclaw.Route
	extra []beamclaw.Route // routes of resends of the same message
	done  bool
	end   beamclaw.RunEvent // the terminal event, once done
	asked bool              // a call needed an approval nobody here could give
}

func newOnceRoute(r beamclaw.Route) *onceRoute { return &onceRoute{r: r} }

// Deliver forwards ev unless the run already ended. Routes do not block,
// so delivering under the lock keeps events in order.
func (o *onceRoute) Deliver(ev beamclaw.RunEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return
	}
	o.done = ev.Terminal()
	if o.done {
		o.end = ev
	}
	o.asked = o.asked || ev.Type == beamclaw.EvNeedsApproval
	if o.r != nil {
		o.r.Deliver(ev)
	}
	for _, r := range o.extra {
		r.Deliver(ev)
	}
}

// attach adds the route of a resend: it gets every event from now on,
// the terminal one included. It reports false when the run already ended.
func (o *onceRoute) attach(r beamclaw.Route) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return false
	}
	o.extra = append(o.extra, r)
	return true
}

// terminal is the terminal event delivered (zero before there is one).
func (o *onceRoute) terminal() beamclaw.RunEvent {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.end
}

// neededApproval reports whether a call of the run was not run for want
// of an approval nobody on its route could give.
func (o *onceRoute) neededApproval() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.asked
}

// ended reports whether the terminal event was delivered.
func (o *onceRoute) ended() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.done
}

// WaitRoute is a Route that keeps a run's terminal event, for a caller
// that waits for the answer (scheduled turns, maintenance).
type WaitRoute struct {
	once sync.Once
	done chan struct{}
	ev   beamclaw.RunEvent
}

// NewWaitRoute returns an empty WaitRoute.
func NewWaitRoute() *WaitRoute { return &WaitRoute{done: make(chan struct{})} }

// Deliver implements beamclaw.Route.
func (w *WaitRoute) Deliver(ev beamclaw.RunEvent) {
	if ev.Type != beamclaw.EvFinal && ev.Type != beamclaw.EvError {
		return
	}
	w.once.Do(func() {
		w.ev = ev
		close(w.done)
	})
}

// Wait returns the terminal event once it came, or ctx's error.
func (w *WaitRoute) Wait(ctx context.Context) (beamclaw.RunEvent, error) {
	select {
	case <-w.done:
		return w.ev, nil
	case <-ctx.Done():
		return beamclaw.RunEvent{}, ctx.Err()
	}
}
