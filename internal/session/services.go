package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

var errClosed = errors.New("session closed")

// sessionService runs a session's supervisor and, when it ends for any
// reason (hibernation, expiry, a loop past its restart budget, shutdown),
// takes the lane out of the registry and fails what it still held. The
// next message revives the session from the backend.
type sessionService struct {
	l   *lane
	sup *suture.Supervisor
}

func (s *sessionService) Serve(ctx context.Context) error {
	err := s.sup.Serve(ctx)
	s.l.m.forget(ctx, s.l)
	if ctx.Err() == nil && !errors.Is(err, suture.ErrDoNotRestart) {
		s.l.m.log.LogAttrs(ctx, slog.LevelWarn, "session stopped", slog.String("session_id", s.l.id),
			slog.Any("err", err))
	}
	return supervise.NoRestart(errClosed)
}

func (s *sessionService) String() string { return s.l.id }

// laneService is the lane's goroutine: it never exits on its own, except
// to hibernate the session once it has been idle for IdleHibernate.
type laneService struct{ l *lane }

func (s *laneService) Serve(ctx context.Context) error {
	l := s.l
	for {
		var idle <-chan time.Time
		if d := l.m.opts.IdleHibernate; d > 0 {
			idle = l.m.clock.After(l.idleWait(d))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.quit:
			return supervise.Fatal(errClosed)
		case <-idle:
			l.m.hibernate(ctx, l)
		}
	}
}

func (s *laneService) String() string { return "lane" }

// idleWait is how long until the lane may hibernate.
func (l *lane) idleWait(d time.Duration) time.Duration {
	l.mu.Lock()
	last := l.last
	l.mu.Unlock()
	if w := d - l.m.clock.Now().Sub(last); w > 0 {
		return w
	}
	return d // busy past its idle time: look again later
}

// loopService serves the lane's runs one at a time. A panic or error
// restarts it (supervise.Guard); the lane then retries the interrupted run.
type loopService struct{ l *lane }

func (s *loopService) Serve(ctx context.Context) error {
	for {
		r, lr, err := s.l.next(ctx)
		if err != nil {
			return err
		}
		if err := s.l.m.opts.Engine.Run(ctx, lr); err != nil {
			return fmt.Errorf("run %s: %w", r.id, err)
		}
		s.l.finish(r)
	}
}

func (s *loopService) String() string { return "loop" }
