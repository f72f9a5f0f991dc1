package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// The scheduler commands go through the running daemon (its runner must
// hear of every change); when none runs they work on the store itself,
// and the next start picks the changes up.

// SchedulerList lists the jobs (all: done and failed ones too).
func (a *Admin) SchedulerList(ctx context.Context, agent string, all bool) (protocol.SchedJobList, error) {
	q := url.Values{}
	if agent != "" {
		q.Set("agent", agent)
	}
	if all {
		q.Set("all", "1")
	}
	path := protocol.ControlScheduler
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out protocol.SchedJobList
	err := a.withScheduler(ctx, http.MethodGet, path, nil, &out, func(s control.Scheduler) error {
		jobs, err := s.List(ctx, control.JobFilter(agent, all))
		out = control.JobsWire(jobs)
		return err
	})
	return out, err
}

// SchedulerAdd stores a new job.
func (a *Admin) SchedulerAdd(ctx context.Context, req protocol.SchedAdd) (protocol.SchedJob, error) {
	var out protocol.SchedJob
	err := a.withScheduler(ctx, http.MethodPost, protocol.ControlScheduler, req, &out, func(s control.Scheduler) error {
		j, err := s.Add(ctx, control.AddRequest(req))
		out = control.JobWire(j)
		return err
	})
	return out, err
}

// SchedulerControl cancels, pauses or resumes a job (action "cancel",
// "pause" or "resume").
func (a *Admin) SchedulerControl(ctx context.Context, action, id string) (protocol.SchedJob, error) {
	method, path := http.MethodPost, protocol.ControlSchedJob+"/"+url.PathEscape(id)+"/"+action
	if action == "cancel" {
		method, path = http.MethodDelete, protocol.ControlSchedJob+"/"+url.PathEscape(id)
	}
	var out protocol.SchedJob
	err := a.withScheduler(ctx, method, path, nil, &out, func(s control.Scheduler) error {
		j, err := control.SchedControl(ctx, s, action, id)
		out = control.JobWire(j)
		return err
	})
	return out, err
}

// SchedulerRuns is a job's run history, newest first.
func (a *Admin) SchedulerRuns(ctx context.Context, id string) (protocol.SchedRunList, error) {
	var out protocol.SchedRunList
	err := a.withScheduler(ctx, http.MethodGet, protocol.ControlSchedJob+"/"+url.PathEscape(id)+"/runs", nil, &out,
		func(s control.Scheduler) error {
			runs, err := s.Runs(ctx, id, 0)
			out = control.RunsWire(runs)
			return err
		})
	return out, err
}

// withScheduler sends the request to the running daemon, or, when none
// runs, calls offline with a Scheduler on the store (one that runs no
// jobs).
func (a *Admin) withScheduler(ctx context.Context, method, path string, in, out any, offline func(control.Scheduler) error) error {
	l, err := a.load()
	if err != nil {
		return err
	}
	if ok, err := controlDo(ctx, l.Paths.Socket, method, path, in, out); ok {
		return err
	}
	if !l.Config.Scheduler.Enabled {
		return &control.UserError{Msg: "the scheduler is off: set scheduler.enabled: true in " + l.Paths.ConfigFile}
	}
	db, err := store.Open(l.Paths.DB, store.Options{PIDFile: l.Paths.PIDFile})
	if err != nil {
		return err
	}
	o := l.Scheduler.Options()
	o.DB, o.CheckTarget = db, l.CheckDelivery
	s, err := scheduler.New(o)
	if err == nil {
		err = schedError(offline(s))
	}
	if cerr := db.Close(); cerr != nil && err == nil {
		return cerr
	}
	return err
}

// schedError keeps a scheduler error's own words for the user.
func schedError(err error) error {
	var be *beamclaw.Error
	if err != nil && errors.As(err, &be) && beamclaw.KindOf(err) != beamclaw.KindInternal {
		return &control.UserError{Msg: beamclaw.UserMessage(err), Err: err}
	}
	return err
}
