package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// fireBatch bounds the jobs started in one transaction.
const fireBatch = 512

// Runner is the timer service: it keeps the active jobs in a heap and one
// clock timer for the earliest, starts due runs (writing running_since
// before the executor sees them) and applies the misfire policies. It
// never runs a turn itself.
type Runner struct {
	s *Scheduler
	// parked, when set (tests), is called each time the runner waits,
	// with the deadline of its timer.
	parked func(ctx context.Context, deadline time.Time)
}

func (r *Runner) String() string { return "scheduler_runner" }

// Serve loads the jobs, recovers runs a stop interrupted, and fires jobs
// as they fall due until ctx ends.
func (r *Runner) Serve(ctx context.Context) error {
	s := r.s
	var idx *index
	for {
		ids, all, reindex := s.takeChanges()
		if all || reindex || idx == nil {
			recovering := all || idx == nil // a start, or an executor's: not other nodes' writes
			idx = newIndex()
			if err := r.loadAll(ctx, idx, recovering); err != nil {
				return err
			}
		} else if len(ids) > 0 {
			if err := r.reload(idx, ids); err != nil {
				return err
			}
		}
		now := s.clock.Now()
		if due := idx.due(now, fireBatch); len(due) > 0 {
			if err := r.fire(ctx, idx, due, now); err != nil {
				return err
			}
			continue
		}
		wait := s.opts.MaxSleep
		if at, ok := idx.earliest(); ok && at.Sub(now) < wait {
			wait = at.Sub(now)
		}
		timer := s.clock.After(wait)
		if r.parked != nil {
			r.parked(ctx, now.Add(wait))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.wake:
		case <-timer:
		}
	}
}

// loadAll indexes every active job, fails jobs whose zone no longer
// loads, recovers interrupted runs (when recovering: a run is interrupted if
// it is running but not here, which in a cluster holds only when this
// node has just taken the scheduler over) and prunes old finished jobs.
func (r *Runner) loadAll(ctx context.Context, idx *index, recovering bool) error {
	s := r.s
	now := s.clock.Now()
	var interrupted, broken, old []string
	err := s.area.View(func(tx *store.Tx) error {
		return s.each(tx, func(j Job) error {
			switch {
			case recovering && j.Running() && !s.inFlight(j.ID):
				interrupted = append(interrupted, j.ID)
			case j.State == StateActive && j.Schedule.TZ != "" && s.zone(j.Schedule.TZ) == nil:
				broken = append(broken, j.ID)
			case j.State == StateActive:
				idx.set(j.ID, j.NextRunAt)
			case (j.State == StateDone || j.State == StateFailed) && s.opts.RetainFinished > 0 &&
				now.Sub(j.Updated) > s.opts.RetainFinished:
				old = append(old, j.ID)
			}
			return nil
		})
	})
	if err != nil {
		return storeErr("scheduler: load jobs", err)
	}
	if err := r.recoverInterrupted(ctx, idx, interrupted, now); err != nil {
		return err
	}
	if err := r.failBroken(broken, now); err != nil {
		return err
	}
	if len(old) > 0 {
		err := s.area.Update(func(tx *store.Tx) error {
			for _, id := range old {
				if err := deleteJob(tx, id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return storeErr("scheduler: prune finished jobs", err)
		}
	}
	s.log.LogAttrs(ctx, slog.LevelDebug, "scheduler loaded jobs", slog.Int("active", idx.len()),
		slog.Int("interrupted", len(interrupted)), slog.Int("pruned", len(old)))
	return nil
}

// reload re-reads changed jobs into the index.
func (r *Runner) reload(idx *index, ids []string) error {
	s := r.s
	return s.area.View(func(tx *store.Tx) error {
		for _, id := range ids {
			j, ok, err := s.load(tx, id)
			if err != nil {
				return storeErr("scheduler: reload job", err)
			}
			if !ok || j.State != StateActive {
				idx.set(id, time.Time{})
				continue
			}
			idx.set(id, j.NextRunAt)
		}
		return nil
	})
}

// failBroken marks jobs whose time zone no longer loads as failed.
func (r *Runner) failBroken(ids []string, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	s := r.s
	err := s.area.Update(func(tx *store.Tx) error {
		for _, id := range ids {
			j, ok, err := getJob(tx, id)
			if err != nil || !ok {
				return err
			}
			j.State, j.NextRunAt, j.Updated = StateFailed, time.Time{}, now
			j.Reason = fmt.Sprintf("time zone %q does not load on this machine", j.Schedule.TZ)
			if err := putJob(tx, j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return storeErr("scheduler: fail jobs", err)
	}
	return nil
}
