package control

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// eventBuffer is how many events a slow listener may fall behind before
// it misses some (it is told how many).
const eventBuffer = 256

// Events is the live event stream of the admin API (GET /control/events,
// /api/v1/events as Server-Sent Events): an obs.Backend fanning the bus's
// events out to its listeners, and a service whose end ends them.
type Events struct {
	mu        sync.Mutex
	listeners map[chan protocol.Event]struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// NewEvents returns an event stream with no listener.
func NewEvents() *Events {
	return &Events{listeners: map[chan protocol.Event]struct{}{}, done: make(chan struct{})}
}

// Handle implements obs.Backend: the event goes to every listener that
// keeps up; a full listener misses it.
func (e *Events) Handle(ev beamclaw.Event) {
	out := protocol.Event{Name: string(ev.Name), SessionID: ev.SessionID, Time: ev.Time.UTC(), Attrs: map[string]string{}}
	for _, a := range ev.Attrs {
		out.Attrs[a.Key] = a.Value.String()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.listeners {
		select {
		case ch <- out:
		default:
		}
	}
}

// Serve holds the stream open until ctx ends, then ends every listener
// (a suture service: a stopping daemon does not wait on open streams).
func (e *Events) Serve(ctx context.Context) error {
	<-ctx.Done()
	e.closeOnce.Do(func() { close(e.done) })
	return ctx.Err()
}

func (e *Events) String() string { return "control.events" }

func (e *Events) listen() (chan protocol.Event, func()) {
	ch := make(chan protocol.Event, eventBuffer)
	e.mu.Lock()
	e.listeners[ch] = struct{}{}
	e.mu.Unlock()
	return ch, func() {
		e.mu.Lock()
		delete(e.listeners, ch)
		e.mu.Unlock()
	}
}

// eventsStream serves the events as Server-Sent Events: "event: <name>"
// and the event as JSON, its attributes scrubbed; a comment every 15 s
// keeps proxies from closing an idle stream.
func (c *handlers) eventsStream(w http.ResponseWriter, r *http.Request) {
	if c.events == nil {
		writeError(w, http.StatusNotFound, "this daemon streams no events")
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream: no whole-response deadline
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	ch, stop := c.events.listen()
	defer stop()
	tick := c.clock.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.events.done:
			return
		case <-tick.C():
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case ev := <-ch:
			for k, v := range ev.Attrs {
				ev.Attrs[k] = c.scrub(v)
			}
			b, _ := json.Marshal(ev)
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Name, b); err != nil {
				c.log.LogAttrs(r.Context(), slog.LevelDebug, "event stream ended", slog.String("err", err.Error()))
				return
			}
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
