package provider

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Defaults of a client's retry waits.
const (
	DefaultBackoffBase   = 500 * time.Millisecond // the first wait, doubled per retry
	DefaultBackoffMax    = 8 * time.Second
	DefaultRetryAfterCap = 20 * time.Second // a longer Retry-After is not waited for (fail over instead)
)

// Retry is an adapter's retry loop before the first token: how many
// retries, and how long to wait between them. Every field but Max is
// optional (the defaults above; Sleep waits on the system clock).
type Retry struct {
	Name          string // the provider, in log lines and errors
	Max           int    // retries after the first attempt; 0 none
	BackoffBase   time.Duration
	BackoffMax    time.Duration
	RetryAfterCap time.Duration
	// Sleep waits between retries; tests inject one that records and
	// returns at once (SleepOn a clock otherwise).
	Sleep func(ctx context.Context, d time.Duration) error
	Log   *slog.Logger
}

// SleepOn waits d on c, or until ctx ends.
func SleepOn(c clock.Clock) func(ctx context.Context, d time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		tm := c.NewTimer(d)
		defer tm.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tm.C():
			return nil
		}
	}
}

// Do runs attempt until it succeeds, fails for good, or retries run out.
// canRetry adds the caller's own condition (no text emitted yet). A call
// marked WithoutRetries makes one attempt.
func (r *Retry) Do(ctx context.Context, op string, canRetry func(error) bool, attempt func(n int) error) error {
	maxRetries := r.Max
	if NoRetries(ctx) {
		maxRetries = 0 // a chain has somewhere else to go: its loop is the retry
	}
	for n := 0; ; n++ {
		err := attempt(n)
		if err == nil || n >= maxRetries || ctx.Err() != nil || !Retryable(err) || !canRetry(err) {
			return err
		}
		wait, ok := r.backoff(n, err)
		if !ok {
			return err
		}
		if report, _ := ctx.Value(retryReportKey{}).(func(error)); report != nil {
			report(err)
		}
		if r.Log != nil {
			r.Log.LogAttrs(ctx, slog.LevelWarn, "provider retry",
				slog.String("provider", r.Name), slog.Int("attempt", n+1),
				slog.String("kind", beamclaw.KindOf(err).String()), slog.Duration("wait", wait))
		}
		sleep := r.Sleep
		if sleep == nil {
			sleep = SleepOn(clock.System)
		}
		if serr := sleep(ctx, wait); serr != nil {
			return TransportError(op, r.Name, ctx, 0, errors.Join(err, serr))
		}
	}
}

// backoff is the wait before retry n+1: the provider's Retry-After when
// it gave one (ok false when that is over the cap), else exponential.
func (r *Retry) backoff(n int, err error) (time.Duration, bool) {
	if ra := beamclaw.RetryAfterOf(err); ra > 0 {
		return ra, ra <= orDefault(r.RetryAfterCap, DefaultRetryAfterCap)
	}
	limit := orDefault(r.BackoffMax, DefaultBackoffMax)
	d := orDefault(r.BackoffBase, DefaultBackoffBase) << n
	if d > limit || d <= 0 {
		d = limit
	}
	return d, true
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Pick is a configured duration of an adapter's Options: d, def when d
// is zero, or 0 (none) when d is negative.
func Pick(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// WithTimeout bounds a whole call by d (Settings.Timeout); 0 is none.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// ModelOf is the model a call asks for: the request's, else the
// provider's default; an error (op's, KindInvalid) when neither names one.
func ModelOf(op, asked, def string) (string, error) {
	if asked != "" {
		return asked, nil
	}
	if def == "" {
		return "", beamclaw.E(op, beamclaw.KindInvalid, "no model configured for the provider", nil)
	}
	return def, nil
}

// FirstToken bounds one attempt until its first token
// (Settings.FirstTokenTimeout, 0 none): actx is cancelled with
// ErrFirstToken after d unless live is called first. cancel ends the
// attempt (with a cause) and its timer; call it when the attempt is
// over. The timer runs on real time, like the call's Timeout: it bounds
// network I/O.
func FirstToken(ctx context.Context, d time.Duration) (actx context.Context, live func(), cancel context.CancelCauseFunc) {
	actx, end := context.WithCancelCause(ctx)
	if d <= 0 {
		return actx, func() {}, end
	}
	timer := time.AfterFunc(d, func() { end(ErrFirstToken) })
	return actx, func() { timer.Stop() }, func(cause error) { timer.Stop(); end(cause) }
}

// noRetriesKey marks a call's context: the provider must not retry in
// place (NoRetries).
type noRetriesKey struct{}

// WithoutRetries is ctx for a call whose provider has somewhere to fall
// over to: its adapter makes one attempt, and the chain's loop is the one
// retry loop (each attempt an event).
func WithoutRetries(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetriesKey{}, true)
}

// NoRetries reports whether an adapter must make a single attempt
// (WithoutRetries); its max_retries apply otherwise.
func NoRetries(ctx context.Context) bool {
	v, _ := ctx.Value(noRetriesKey{}).(bool)
	return v
}

// retryReportKey marks a call's context with what its adapter tells of
// each failed attempt it retries in place (withRetryReport).
type retryReportKey struct{}

// withRetryReport is ctx for a call its adapter may retry in place: each
// failed attempt it retries is given to report first (the chain makes it
// an llm_attempt event and names it in its final error).
func withRetryReport(ctx context.Context, report func(error)) context.Context {
	return context.WithValue(ctx, retryReportKey{}, report)
}
