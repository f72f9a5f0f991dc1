package scheduler

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/obs/obstest"
)

// fakeTurns records turns and answers them with answer (an echo when nil).
type fakeTurns struct {
	mu     sync.Mutex
	calls  []Turn
	called chan Turn
	answer func(ctx context.Context, t Turn) (Result, error)
}

func newFakeTurns() *fakeTurns { return &fakeTurns{called: make(chan Turn, 100000)} }

func (f *fakeTurns) SessionID(t Turn) string {
	if t.SessionKey == "" {
		return "session-" + t.UserID + "-" + t.Agent
	}
	return "session-" + t.SessionKey
}

func (f *fakeTurns) Run(ctx context.Context, t Turn) (Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, t)
	answer := f.answer
	f.mu.Unlock()
	f.called <- t
	if answer == nil {
		return Result{Text: "done: " + t.Prompt}, nil
	}
	return answer(ctx, t)
}

func (f *fakeTurns) setAnswer(fn func(ctx context.Context, t Turn) (Result, error)) {
	f.mu.Lock()
	f.answer = fn
	f.mu.Unlock()
}

func (f *fakeTurns) all() []Turn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// dues lists the Due of every turn of job id.
func (f *fakeTurns) dues(id string) []string {
	var out []string
	for _, t := range f.all() {
		if t.JobID == id {
			out = append(out, t.Due.UTC().Format(time.RFC3339))
		}
	}
	return out
}

// fakeDeliverer records deliveries; fail, when set, fails them.
type fakeDeliverer struct {
	mu   sync.Mutex
	got  chan Message
	fail error
}

func (d *fakeDeliverer) Deliver(_ context.Context, to Delivery, msg Message) error {
	d.mu.Lock()
	fail := d.fail
	d.mu.Unlock()
	if fail != nil {
		return fail
	}
	d.got <- msg
	return nil
}

// recorder keeps every event.
type recorder struct{ obstest.Recorder }

// named returns the events called name about job (any job when "").
func (r *recorder) named(name beamclaw.EventName, job string) []beamclaw.Event {
	var out []beamclaw.Event
	for _, ev := range r.Named(name) {
		if job == "" || attr(ev, "job_id") == job {
			out = append(out, ev)
		}
	}
	return out
}

func attr(ev beamclaw.Event, key string) string {
	for _, a := range ev.Attrs {
		if a.Key == key {
			return a.Value.String()
		}
	}
	return ""
}

var errBoom = errors.New("boom")
