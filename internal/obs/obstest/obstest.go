// Package obstest records the events a package emits, for its tests; only
// test files import it.
package obstest

import (
	"context"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Recorder keeps every event it is given, in order; it is safe for
// concurrent use. Its zero value is ready.
type Recorder struct {
	mu  sync.Mutex
	evs []beamclaw.Event
}

// Emit records ev: a Recorder is an emitter (Emit(ctx, ev)).
func (r *Recorder) Emit(_ context.Context, ev beamclaw.Event) { r.Record(ev) }

// Record records ev: r.Record fits an Options' Emit func(beamclaw.Event).
func (r *Recorder) Record(ev beamclaw.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
}

// Named returns the events called name, in the order they came.
func (r *Recorder) Named(name beamclaw.EventName) []beamclaw.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []beamclaw.Event
	for _, ev := range r.evs {
		if ev.Name == name {
			out = append(out, ev)
		}
	}
	return out
}
