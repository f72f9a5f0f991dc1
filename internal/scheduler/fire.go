package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// fire decides, in one transaction, what happens to each due job: a run
// starts (running_since written, next_run_at advanced on the schedule),
// or the instant is recorded as skipped or missed. Runs go to the
// executor and events out only after the commit.
func (r *Runner) fire(ctx context.Context, idx *index, ids []string, now time.Time) error {
	s := r.s
	var out settled
	next := make(map[string]time.Time, len(ids))
	err := s.area.Update(func(tx *store.Tx) error {
		out, next = settled{}, make(map[string]time.Time, len(ids)) // fn may run again: from scratch
		for _, id := range ids {
			j, ok, err := s.load(tx, id)
			if err != nil {
				return err
			}
			if !ok || j.State != StateActive || j.NextRunAt.IsZero() || j.NextRunAt.After(now) {
				next[id] = activeNext(j, ok)
				continue
			}
			if err := out.settle(tx, &j, now, s.decide); err != nil {
				return err
			}
			next[id] = activeNext(j, true)
		}
		return nil
	})
	if err != nil {
		return storeErr("scheduler: fire", err)
	}
	for id, at := range next {
		idx.set(id, at)
	}
	s.enqueue(out.runs...)
	s.emit(ctx, out.evs...)
	return nil
}

// settled collects, inside one transaction, the runs to hand to the
// executor and the events to emit once it has committed.
type settled struct {
	runs []dispatch
	evs  []event
}

// settle applies step (decide, settleInterrupted) to j, stores j, and
// keeps the run and events step produced.
func (o *settled) settle(tx *store.Tx, j *Job, now time.Time,
	step func(*store.Tx, *Job, time.Time) (*dispatch, []event, error)) error {
	d, e, err := step(tx, j, now)
	if err != nil {
		return err
	}
	if err := putJob(tx, *j); err != nil {
		return err
	}
	if d != nil {
		o.runs = append(o.runs, *d)
	}
	o.evs = append(o.evs, e...)
	return nil
}

func activeNext(j Job, ok bool) time.Time {
	if !ok || j.State != StateActive {
		return time.Time{}
	}
	return j.NextRunAt
}

// decide handles one due job: overlap, misfire (late or due while
// stopped) or an ordinary start. j is updated in place.
func (s *Scheduler) decide(tx *store.Tx, j *Job, now time.Time) (*dispatch, []event, error) {
	due := j.NextRunAt
	if j.Running() {
		j.NextRunAt, j.Updated = j.Schedule.Next(now), now
		_, err := addRun(tx, j.ID, Run{Due: due, Outcome: OutcomeSkipped,
			Reason: "the previous run was still running"}, s.opts.RunHistory)
		return nil, []event{evSkipped(*j, skipOverlap, 1)}, err
	}
	stopped := due.Before(s.opened)
	late := now.Sub(due) > s.opts.MisfireThreshold
	if !stopped && !late {
		d, err := s.start(tx, j, due, now, 0, "")
		return d, nil, err
	}
	n, last := j.Schedule.occurrences(due, now)
	why := "due while beamclaw was not running"
	if !stopped {
		why = fmt.Sprintf("due %s ago, past the misfire threshold", now.Sub(due).Round(time.Second))
	}
	var (
		run Run
		ev  event
	)
	switch {
	case j.Misfire == MisfireSkip:
		run = Run{Due: due, Outcome: OutcomeSkipped, Missed: n - 1, Reason: why + "; misfire policy skip"}
		ev = evSkipped(*j, skipMisfire, n)
	case j.Grace > 0 && now.Sub(last) > j.Grace:
		run = Run{Due: due, Outcome: OutcomeMissed, Missed: n - 1,
			Reason: fmt.Sprintf("%s; past the grace window of %s", why, j.Grace)}
		ev = evSkipped(*j, skipMissed, n)
	default:
		reason := why + "; misfire policy run_once"
		if n > 1 {
			reason = fmt.Sprintf("%s: one run for %d missed", reason, n)
		}
		d, err := s.start(tx, j, due, now, n-1, reason)
		return d, nil, err
	}
	if _, err := addRun(tx, j.ID, run, s.opts.RunHistory); err != nil {
		return nil, nil, err
	}
	j.NextRunAt, j.Updated = j.Schedule.Next(now), now
	evs := []event{ev}
	if j.NextRunAt.IsZero() {
		j.State, j.Reason = StateDone, "no run left ("+string(run.Outcome)+": "+why+")"
		evs = append(evs, evCompleted(*j, "finished"))
	}
	return nil, evs, nil
}

// start records the start of a run of j due at due: a run entry, then
// running_since, fire_count and the next instant on the schedule.
func (s *Scheduler) start(tx *store.Tx, j *Job, due, now time.Time, missed int, reason string) (*dispatch, error) {
	seq, err := addRun(tx, j.ID, Run{Due: due, Started: now, Outcome: OutcomeRunning,
		Missed: missed, Reason: reason}, s.opts.RunHistory)
	if err != nil {
		return nil, err
	}
	j.RunningSince, j.RunningDue, j.RunningSeq = now, due, seq
	j.FireCount++
	j.NextRunAt, j.Updated = j.Schedule.Next(now), now
	return &dispatch{job: *j, seq: seq, due: due, started: now}, nil
}

// recoverInterrupted settles runs that were executing when beamclaw (or
// the executor) stopped: the run is recorded as interrupted; under
// run_once (within the grace window) it runs again once, standing also
// for the instants missed since; under skip it does not.
func (r *Runner) recoverInterrupted(ctx context.Context, idx *index, ids []string, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	s := r.s
	var out settled
	err := s.area.Update(func(tx *store.Tx) error {
		out = settled{} // fn may run again: from scratch
		for _, id := range ids {
			j, ok, err := s.load(tx, id)
			if err != nil {
				return err
			}
			if !ok || !j.Running() || s.inFlight(id) {
				continue
			}
			if err := out.settle(tx, &j, now, s.settleInterrupted); err != nil {
				return err
			}
			idx.set(id, activeNext(j, true))
		}
		return nil
	})
	if err != nil {
		return storeErr("scheduler: recover interrupted runs", err)
	}
	s.enqueue(out.runs...)
	s.emit(ctx, out.evs...)
	return nil
}

func (s *Scheduler) settleInterrupted(tx *store.Tx, j *Job, now time.Time) (*dispatch, []event, error) {
	if run, ok, err := getRun(tx, j.ID, j.RunningSeq); err != nil {
		return nil, nil, err
	} else if ok {
		run.Outcome, run.Finished = OutcomeInterrupted, now
		run.Reason = joinReason(run.Reason, "interrupted: beamclaw stopped during the run")
		if err := updateRun(tx, j.ID, run); err != nil {
			return nil, nil, err
		}
	}
	evs := []event{evSkipped(*j, skipInterrupted, 1)}
	due := j.RunningDue
	j.RunningSince, j.RunningDue, j.RunningSeq, j.Updated = time.Time{}, time.Time{}, 0, now
	if j.State != StateActive {
		return nil, evs, nil
	}
	if j.Misfire == MisfireRunOnce && (j.Grace == 0 || now.Sub(due) <= j.Grace) {
		missed, reason := 0, "re-run of a run interrupted by a stop"
		if !j.NextRunAt.IsZero() && !j.NextRunAt.After(now) {
			missed, _ = j.Schedule.occurrences(j.NextRunAt, now)
			reason = fmt.Sprintf("%s, also standing for %d missed", reason, missed)
		}
		d, err := s.start(tx, j, due, now, missed, reason)
		return d, evs, err
	}
	if j.NextRunAt.IsZero() {
		j.State, j.Reason = StateDone, "its run was interrupted by a stop and is not re-run (misfire policy)"
		evs = append(evs, evCompleted(*j, "finished"))
	}
	return nil, evs, nil
}

func joinReason(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
