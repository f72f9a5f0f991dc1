package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// maxErrorText bounds a stored error, in runes.
const maxErrorText = 500

// finish records how a run ended: its run entry, the job's counters, a
// backoff or an auto-pause after a failure, done after the last run. It
// commits (in a group commit with other runs ending at once) before the
// run leaves flight and before any event goes out.
func (s *Scheduler) finish(ctx context.Context, d dispatch, o outcome) error {
	now := s.clock.Now()
	var errText string
	if o.err != nil {
		errText = clip(s.opts.Scrub(o.err.Error()), maxErrorText)
	}
	var evs []event
	// Update is the group commit: runs ending together share one commit. fn may run again
	// after a rollback, so it starts from scratch each time.
	err := s.area.Update(func(tx *store.Tx) error {
		evs = slices.Clone(o.events)
		if o.kind == OutcomeSkipped {
			evs = append(evs, evSkipped(d.job, skipIdle, 1))
		}
		j, ok, err := s.load(tx, d.job.ID)
		if err != nil || !ok {
			return err
		}
		run, ok, err := getRun(tx, j.ID, d.seq)
		if err != nil {
			return err
		}
		if !ok {
			run = Run{Seq: d.seq, Due: d.due, Started: d.started}
		}
		run.Finished, run.Outcome, run.Error, run.SessionID = now, o.kind, errText, o.sessionID
		run.Reason = joinReason(run.Reason, o.reason)
		if o.kind == OutcomeOK {
			run.Excerpt = excerpt(s.opts.Scrub(o.text))
		}
		if err := s.recordRun(tx, j.ID, run); err != nil {
			return err
		}
		if j.RunningSeq == d.seq {
			j.RunningSince, j.RunningDue, j.RunningSeq = time.Time{}, time.Time{}, 0
		}
		j.LastRunAt, j.Updated = d.started, now
		evs = append(evs, s.settle(&j, o, errText, now)...)
		return putJob(tx, j)
	})
	if err != nil {
		return storeErr("scheduler: record run", err)
	}
	s.land(d.job.ID)
	s.notify(d.job.ID)
	s.emit(ctx, evs...)
	if s.afterRun != nil {
		s.afterRun(d.job.ID, o.kind)
	}
	return nil
}

// settle updates the job's counters and state after a run.
func (s *Scheduler) settle(j *Job, o outcome, errText string, now time.Time) []event {
	var evs []event
	switch o.kind {
	case OutcomeFailed:
		j.ConsecutiveErrors++
		j.LastError = errText
		evs = append(evs, evFailed(*j, errText))
		if j.State != StateActive {
			break
		}
		if j.ConsecutiveErrors >= s.opts.MaxErrors {
			j.State = StatePaused
			j.Reason = fmt.Sprintf("paused after %d consecutive failures; last: %s", j.ConsecutiveErrors, errText)
			return append(evs, evPaused(*j, "auto"))
		}
		if retry := now.Add(s.backoff(j.ConsecutiveErrors)); j.NextRunAt.IsZero() || j.NextRunAt.Before(retry) {
			j.NextRunAt = retry
		}
	case OutcomeInterrupted:
	default:
		j.ConsecutiveErrors, j.LastError = 0, ""
	}
	if j.State == StateActive && j.NextRunAt.IsZero() {
		j.State, j.Reason = StateDone, "finished"
		evs = append(evs, evCompleted(*j, "finished"))
	}
	return evs
}

// backoff is the wait after the n-th consecutive failure.
func (s *Scheduler) backoff(n int) time.Duration {
	b := s.opts.Backoff
	if n > len(b) {
		n = len(b)
	}
	return b[max(n, 1)-1]
}

// recordRun stores a finished run. Consecutive idle heartbeat runs
// collapse into one entry, so an idle heartbeat does not push the useful
// history out.
func (s *Scheduler) recordRun(tx *store.Tx, jobID string, run Run) error {
	if run.Outcome == OutcomeSkipped && run.Seq > 1 {
		prev, ok, err := prevRun(tx, jobID, run.Seq)
		if err != nil {
			return err
		}
		if ok && prev.Outcome == OutcomeSkipped && prev.Reason == run.Reason && prev.Error == "" {
			prev.Missed += 1 + run.Missed
			prev.Finished = run.Finished
			if err := updateRun(tx, jobID, prev); err != nil {
				return err
			}
			return dropRun(tx, jobID, run.Seq)
		}
	}
	return updateRun(tx, jobID, run)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
