package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Cancel ends a job for good (state done, reason canceled) and stops a
// run of it in progress. Canceling a finished job changes nothing.
func (s *Scheduler) Cancel(ctx context.Context, id string) (Job, error) {
	return s.cancel(ctx, "scheduler.Cancel", id, nil)
}

func (s *Scheduler) cancel(ctx context.Context, op, id string, scope func(Job) bool) (Job, error) {
	j, err := s.change(ctx, op, id, scope, func(j *Job, now time.Time) ([]event, error) {
		if j.State == StateDone {
			return nil, nil
		}
		j.State, j.Reason, j.NextRunAt = StateDone, "canceled", time.Time{}
		return []event{evCompleted(*j, "canceled")}, nil
	})
	if err == nil {
		s.cancelFlight(id)
	}
	return j, err
}

// Pause stops a job's timer until Resume. A run in progress finishes.
func (s *Scheduler) Pause(ctx context.Context, id string) (Job, error) {
	return s.change(ctx, "scheduler.Pause", id, nil, s.pauseFn)
}

func (s *Scheduler) pauseFn(j *Job, _ time.Time) ([]event, error) {
	switch j.State {
	case StatePaused:
		return nil, nil
	case StateActive:
		j.State, j.Reason = StatePaused, "paused by hand"
		return []event{evPaused(*j, "manual")}, nil
	}
	return nil, conflict("scheduler.Pause", j)
}

// Resume makes a paused job active again, with its error count reset.
// Its next run is the schedule's next instant; a one-shot whose time
// passed while paused runs now.
func (s *Scheduler) Resume(ctx context.Context, id string) (Job, error) {
	return s.change(ctx, "scheduler.Resume", id, nil, s.resumeFn)
}

func (s *Scheduler) resumeFn(j *Job, now time.Time) ([]event, error) {
	switch j.State {
	case StateActive:
		return nil, nil
	case StatePaused:
	default:
		return nil, conflict("scheduler.Resume", j)
	}
	next := j.Schedule.Next(now)
	if j.Schedule.Kind == KindOnce && next.IsZero() {
		next = now
	}
	if next.IsZero() {
		return nil, beamclaw.E("scheduler.Resume", beamclaw.KindConflict,
			fmt.Sprintf("job %s has no run left on its schedule", j.ID), nil)
	}
	j.State, j.Reason, j.NextRunAt = StateActive, "", next
	j.ConsecutiveErrors = 0
	return nil, nil
}

func conflict(op string, j *Job) error {
	return beamclaw.E(op, beamclaw.KindConflict, fmt.Sprintf("job %s is %s", j.ID, j.State), nil)
}

// change applies fn to a stored job in one transaction (scope, when set,
// must accept the job or it is not found), then wakes the runner and
// emits fn's events.
func (s *Scheduler) change(ctx context.Context, op, id string, scope func(Job) bool,
	fn func(j *Job, now time.Time) ([]event, error)) (Job, error) {
	var (
		j   Job
		evs []event
	)
	now := s.clock.Now()
	err := s.area.Update(func(tx *store.Tx) error {
		var ok bool
		var err error
		j, ok, err = s.load(tx, id)
		if err != nil {
			return err
		}
		if !ok || (scope != nil && !scope(j)) {
			return notFound(op, id)
		}
		before := j
		if evs, err = fn(&j, now); err != nil {
			return err
		}
		if j.State == before.State && j.NextRunAt.Equal(before.NextRunAt) && j.Reason == before.Reason {
			return nil
		}
		j.Updated = now
		return putJob(tx, j)
	})
	if err != nil {
		return Job{}, wrapStore(op, err)
	}
	s.notify(id)
	s.emit(ctx, evs...)
	return j, nil
}
