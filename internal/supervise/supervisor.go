package supervise

import (
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
	log = log.With("supervisor", name)
	return suture.New(name, suture.Spec{
		EventHook:                EventHook(log),
		Timeout:                  opts.Timeout,
		FailureBackoff:           opts.Backoff,
		FailureThreshold:         20,
		DontPropagateTermination: opts.Contain,
	})
}

// EventHook returns a suture event hook that logs to log.
func EventHook(log *slog.Logger) suture.EventHook {
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
