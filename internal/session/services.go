package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

// sessionService runs one activation of a session: a contained
// supervisor over its loop, from a queued run until the loop finds nothing
// more to do and parks (the lane stays live in the registry, with no
// goroutine). When it ends any other way (the loop past its restart
// budget, shutdown), it takes the lane out of the registry and fails what
// it still held; the next message revives the session from the backend.
type sessionService struct {
	l   *lane
	gen int
}

func (s *sessionService) Serve(ctx context.Context) error {
	l := s.l
	sup := supervise.New(l.id, supervise.Options{Logger: l.m.log, Contain: true})
	sup.Add(supervise.Guard(&loopService{l: l, gen: s.gen}, supervise.GuardOptions{Budget: l.m.opts.LoopBudget, Clock: l.m.clock}))
	err := sup.Serve(ctx)
	l.mu.Lock()
	parked := l.parkedGen == s.gen
	current := l.gen == s.gen
	if !parked && current {
		l.active = false
	}
	l.mu.Unlock()
	if parked || !current {
		return parkedDone
	}
	l.m.forget(ctx, l)
	if ctx.Err() == nil && !errors.Is(err, suture.ErrDoNotRestart) {
		l.m.log.LogAttrs(ctx, slog.LevelWarn, "session stopped", slog.String("session_id", l.id),
			slog.Any("err", err))
	}
	return closedDone
}

func (s *sessionService) String() string { return s.l.id }

var (
	errClosed = errors.New("session closed")
	errParked = errors.New("session parked: nothing to do")
	// The marked forms, made once: every activation ends with two of them.
	parkedEnd  = supervise.Fatal(errParked)     // the loop's: ends its supervisor
	parkedDone = supervise.NoRestart(errParked) // the activation's: not restarted
	closedDone = supervise.NoRestart(errClosed)
)

// loopService serves the lane's runs one at a time until none is left.
// A panic or error restarts it (supervise.Guard); the lane then retries
// the interrupted run.
type loopService struct {
	l   *lane
	gen int
}

func (s *loopService) Serve(ctx context.Context) error {
	for {
		r, lr, err := s.l.next(ctx, s.gen)
		if err != nil {
			return err
		}
		if r == nil {
			return parkedEnd // ends this activation's supervisor
		}
		if s.l.endCanceled(r) { // canceled while queued
			continue
		}
		rctx, cancel := s.l.runContext(ctx, r)
		err = s.l.m.opts.Engine.Run(rctx, lr)
		cancel()
		s.l.spendLeft(ctx, r)
		if ctx.Err() == nil && s.l.endCanceled(r) {
			continue
		}
		if err != nil {
			return fmt.Errorf("run %s: %w", r.id, err)
		}
		s.l.finish(r)
	}
}

func (s *loopService) String() string { return "loop" }
