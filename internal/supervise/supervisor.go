package supervise

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/thejerf/suture/v4"
)

// Options tunes New.
type Options struct {
	Logger *slog.Logger
	// Contain stops a Fatal error from a child at this supervisor: the
	// subtree stops and its parent removes it, but the parent lives on.
	// Per-session supervisors set it; the root and the subsystems do not,
	// so a fatal failure there ends the daemon with its reason.
	Contain bool
	// Timeout is how long a stopping service may take (default 10 s).
	Timeout time.Duration
	// Backoff is how long the supervisor pauses after too many failures
	// across its children (default 1 s: Guard's budget is what ends them).
	Backoff time.Duration
}

// New returns a supervisor whose events are logged with slog.
func New(name string, opts Options) *suture.Supervisor {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	// The supervisor's name is added when an event is logged, not with
	// log.With here: a session's supervisor is made for every turn, and
	// its events are rare.
	return suture.New(name, suture.Spec{
		EventHook:                eventHook(log, slog.String("supervisor", name)),
		Timeout:                  opts.Timeout,
		FailureBackoff:           opts.Backoff,
		FailureThreshold:         20,
		DontPropagateTermination: opts.Contain,
	})
}

// EventHook returns a suture event hook that logs to log.
func EventHook(log *slog.Logger) suture.EventHook { return eventHook(log) }

// eventHook logs suture's events to log, each line with attrs.
func eventHook(log *slog.Logger, attrs ...slog.Attr) suture.EventHook {
	if len(attrs) > 0 {
		log = slog.New(lazyAttrs{Handler: log.Handler(), attrs: attrs})
	}
	return func(ev suture.Event) {
		switch e := ev.(type) {
		case suture.EventServicePanic:
			log.Error("service panicked", "service", e.ServiceName, "panic", e.PanicMsg,
				"restarting", e.Restarting, "stack", e.Stacktrace)
		case suture.EventServiceTerminate:
			var pe *PanicError
			if err, ok := e.Err.(error); ok && errors.As(err, &pe) {
				log.Error("service panicked", "service", e.ServiceName, "panic", pe.Value,
					"restarting", e.Restarting, "stack", string(pe.Stack))
				return
			}
			log.Warn("service failed", "service", e.ServiceName, "err", e.Err,
				"restarting", e.Restarting)
		case suture.EventBackoff:
			log.Warn("supervisor backing off after repeated failures")
		case suture.EventResume:
			log.Info("supervisor resuming")
		case suture.EventStopTimeout:
			log.Error("service did not stop in time", "service", e.ServiceName)
		}
	}
}

// lazyAttrs adds attrs to each record it handles, instead of formatting
// them into a new handler up front as slog.Logger.With does.
type lazyAttrs struct {
	slog.Handler
	attrs []slog.Attr
}

func (h lazyAttrs) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(h.attrs...)
	return h.Handler.Handle(ctx, r)
}

func (h lazyAttrs) WithAttrs(as []slog.Attr) slog.Handler {
	return lazyAttrs{Handler: h.Handler.WithAttrs(as), attrs: h.attrs}
}

func (h lazyAttrs) WithGroup(name string) slog.Handler {
	return lazyAttrs{Handler: h.Handler.WithGroup(name), attrs: h.attrs}
}
