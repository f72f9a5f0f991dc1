package supervise

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/thejerf/suture/v4"
)

type funcService struct {
	name string
	fn   func(ctx context.Context) error
}

// Func makes a suture Service named name out of fn. fn must block until ctx
// is done (returning nil or ctx.Err()) or until it fails.
func Func(name string, fn func(ctx context.Context) error) suture.Service {
	return &funcService{name: name, fn: fn}
}

func (f *funcService) Serve(ctx context.Context) error { return f.fn(ctx) }
func (f *funcService) String() string                  { return f.name }

// Budget bounds restarts: more than Max failures within Window and the
// guarded service gives up with a Fatal error, taking its subtree down. A
// zero Budget means 5 failures in 30 s, the spec's OTP intensity.
type Budget struct {
	Max    int
	Window time.Duration
}

func (b Budget) withDefaults() Budget {
	if b.Max <= 0 {
		b.Max = 5
	}
	if b.Window <= 0 {
		b.Window = 30 * time.Second
	}
	return b
}

// GuardOptions tunes Guard.
type GuardOptions struct {
	Budget Budget
	// Clock defaults to clock.System.
	Clock clock.Clock
	// OnFailure is called after each failure that will be restarted, with
	// the service's name and the error (for logs and restart metrics).
	OnFailure func(service string, err error)
}

// Guarded is a Service wrapped by Guard.
type Guarded struct {
	inner suture.Service
	opts  GuardOptions

	mu       sync.Mutex
	failures Window
}

// Guard wraps svc so that
//   - a panic becomes a *PanicError (a restartable failure, stack kept);
//   - an inner context.Canceled or DeadlineExceeded while the service's own
//     context is still live (an LLM call that timed out, say) is a failure
//     to restart, not the silent removal suture would otherwise apply;
//   - returning while ctx is live with a nil error is a failure too: a
//     service only ends when told to, or with NoRestart/Fatal;
//   - more than Budget.Max failures within Budget.Window turn into a Fatal
//     error naming the last cause, so nothing spins forever.
func Guard(svc suture.Service, opts GuardOptions) *Guarded {
	opts.Budget = opts.Budget.withDefaults()
	opts.Clock = clock.Or(opts.Clock)
	return &Guarded{inner: svc, opts: opts, failures: NewWindow(opts.Budget)}
}

func (g *Guarded) String() string { return fmt.Sprint(g.inner) }

// Serve runs the inner service once and classifies how it ended.
func (g *Guarded) Serve(ctx context.Context) (err error) {
	err = g.serveRecover(ctx)
	if ctx.Err() != nil {
		return err // asked to stop: whatever it returned is fine
	}
	if IsNoRestart(err) || IsFatal(err) {
		return err
	}
	if err == nil {
		err = errors.New("returned without being asked to stop")
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("inner context error (restarting): %w", err)
	}
	if g.exhausted() {
		return Fatal(fmt.Errorf("%s failed more than %d times in %s, last: %w",
			g.String(), g.opts.Budget.Max, g.opts.Budget.Window, err))
	}
	if g.opts.OnFailure != nil {
		g.opts.OnFailure(g.String(), err)
	}
	return err
}

func (g *Guarded) serveRecover(ctx context.Context) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Service: g.String(), Value: v, Stack: debug.Stack()}
		}
	}()
	return g.inner.Serve(ctx)
}

// exhausted records a failure and reports whether the budget is spent.
func (g *Guarded) exhausted() bool {
	now := g.opts.Clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failures.Fail(now)
}

// Window is the one restart-intensity rule of beamclaw: it remembers
// failure times and reports when more than Budget.Max fall within
// Budget.Window. Guard uses it, and so does every service that keeps its
// own restarts (an MCP server's backoff loop). It is plain data driven by
// the caller's clock; it is not safe for concurrent use.
type Window struct {
	budget   Budget
	failures []time.Time // within the window, oldest first
}

// NewWindow returns an empty Window for b (defaults as Budget's).
func NewWindow(b Budget) Window { return Window{budget: b.withDefaults()} }

// Fail records a failure at now and reports whether the budget is spent.
func (w *Window) Fail(now time.Time) bool {
	cut := now.Add(-w.budget.Window)
	kept := w.failures[:0]
	for _, t := range w.failures {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	w.failures = append(kept, now)
	return len(w.failures) > w.budget.Max
}
