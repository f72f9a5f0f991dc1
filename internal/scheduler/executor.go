package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

// errCanceled ends a run whose job was canceled while it ran.
var errCanceled = errors.New("the job was canceled")

// Executor is the run service: Workers goroutines take started runs from
// the runner, run the turn through Turns, deliver the answer and record
// the outcome (with backoff and auto-pause). A panic inside a turn or a
// delivery fails that run only; a stop leaves running_since set, and the
// runner settles the run by the job's misfire policy.
type Executor struct {
	s *Scheduler
}

func (e *Executor) String() string { return "scheduler_executor" }

// Serve runs the workers until ctx ends.
func (e *Executor) Serve(ctx context.Context) error {
	s := e.s
	if s.opts.Turns == nil {
		return supervise.Fatal(errors.New("scheduler: Options.Turns is required to run jobs"))
	}
	// Runs a previous executor left midway are settled by the runner on
	// a full reload (they are no longer in flight).
	s.notifyAll()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, s.opts.Workers)
	var wg sync.WaitGroup
	for range s.opts.Workers {
		wg.Go(func() {
			if err := e.work(ctx); err != nil {
				errc <- err
				cancel()
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// work runs queued runs one after another; a panic outside a turn (a bug
// here) ends the executor with the panic as its error.
func (e *Executor) work(ctx context.Context) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &supervise.PanicError{Service: e.String(), Value: v, Stack: debug.Stack()}
		}
	}()
	for {
		d, ok := e.s.take(ctx)
		if !ok {
			return nil
		}
		e.run(ctx, d)
	}
}

// run executes one run and records how it ended.
func (e *Executor) run(ctx context.Context, d dispatch) {
	s := e.s
	defer s.land(d.job.ID)
	j := d.job
	turn := s.turn(j, d.due)
	o := outcome{kind: OutcomeOK}
	if j.Heartbeat {
		prompt, idle, err := s.heartbeatPrompt(ctx, j)
		switch {
		case err != nil:
			o = outcome{kind: OutcomeFailed, err: err}
		case idle != "":
			o = outcome{kind: OutcomeSkipped, reason: idle}
		default:
			turn.Prompt = prompt
		}
	}
	if o.kind == OutcomeOK {
		o = e.turn(ctx, d, turn)
	}
	if ctx.Err() != nil {
		return // stopping: the next start settles the run by its misfire policy
	}
	if err := s.finish(ctx, d, o); err != nil {
		s.log.LogAttrs(ctx, slog.LevelError, "scheduler could not record a run",
			slog.String("job_id", j.ID), slog.Any("err", err))
	}
}

// outcome is how a run ended, before it is recorded.
type outcome struct {
	kind      Outcome
	err       error
	reason    string
	text      string
	sessionID string
	events    []event
}

// turn runs the agent turn and delivers its answer.
func (e *Executor) turn(ctx context.Context, d dispatch, t Turn) outcome {
	s := e.s
	j := d.job
	o := outcome{kind: OutcomeOK}
	var sid string
	if err := safely("session id", func() error { sid = s.opts.Turns.SessionID(t); return nil }); err != nil {
		return outcome{kind: OutcomeFailed, err: err}
	}
	o.sessionID = sid
	rctx, cancel := context.WithTimeout(ctx, s.opts.RunTimeout)
	defer cancel()
	if !s.started(j.ID, cancel) {
		return outcome{kind: OutcomeInterrupted, reason: "canceled before it started", sessionID: sid}
	}
	s.emit(ctx, evFired(j, sid))
	var res Result
	err := safely("turn", func() (err error) { res, err = s.opts.Turns.Run(rctx, t); return err })
	if s.wasCanceled(j.ID) {
		return outcome{kind: OutcomeInterrupted, reason: errCanceled.Error(), sessionID: sid}
	}
	if err != nil {
		return outcome{kind: OutcomeFailed, err: err, sessionID: sid}
	}
	o.text = res.Text
	switch {
	case j.Heartbeat && s.opts.Heartbeat.SuppressOK && isHeartbeatOK(res.Text):
		o.kind = OutcomeSuppressed
		o.events = append(o.events, evSuppressed(j, sid))
	case strings.TrimSpace(res.Text) == "":
		o.reason = "empty answer, nothing delivered"
	default:
		dctx, dcancel := context.WithTimeout(ctx, s.opts.DeliveryTimeout)
		defer dcancel()
		msg := Message{JobID: j.ID, Agent: j.Agent, UserID: j.UserID, SessionID: sid,
			Text: res.Text, Heartbeat: j.Heartbeat, Time: s.clock.Now()}
		if err := safely("delivery", func() error { return s.deliver(dctx, j.Delivery, msg) }); err != nil {
			o.kind, o.err = OutcomeFailed, fmt.Errorf("deliver to %s: %w", j.Delivery.Kind, err)
		}
	}
	return o
}

// deliver sends msg to its target.
func (s *Scheduler) deliver(ctx context.Context, to Delivery, msg Message) error {
	switch {
	case to.Kind == DeliverSilent:
		return nil
	case to.Direct():
		return s.webhook.Deliver(ctx, to, msg)
	}
	if s.opts.Deliverer == nil {
		return fmt.Errorf("no deliverer for %s", to.Kind)
	}
	return s.opts.Deliverer.Deliver(ctx, to, msg)
}

// safely runs fn, turning a panic into an error.
func safely(what string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%s panicked: %v", what, v)
		}
	}()
	return fn()
}

// started marks a run as executing; false if the job was canceled first.
func (s *Scheduler) started(id string, cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.flights[id]
	if f == nil || f.canceled {
		return false
	}
	f.cancel = cancel
	return true
}

func (s *Scheduler) wasCanceled(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.flights[id]
	return f != nil && f.canceled
}

// cancelFlight stops a queued or executing run of a canceled job.
func (s *Scheduler) cancelFlight(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.flights[id]; f != nil {
		f.canceled = true
		if f.cancel != nil {
			f.cancel()
		}
	}
}
