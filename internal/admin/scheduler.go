package admin

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Scheduler is what the control routes need of the running daemon's
// scheduler (*scheduler.Scheduler).
type Scheduler interface {
	List(ctx context.Context, f scheduler.Filter) ([]scheduler.Job, error)
	Add(ctx context.Context, req scheduler.AddRequest) (scheduler.Job, error)
	Cancel(ctx context.Context, id string) (scheduler.Job, error)
	Pause(ctx context.Context, id string) (scheduler.Job, error)
	Resume(ctx context.Context, id string) (scheduler.Job, error)
	Runs(ctx context.Context, id string, limit int) ([]scheduler.Run, error)
}

var _ Scheduler = (*scheduler.Scheduler)(nil)

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
	err := a.withScheduler(ctx, http.MethodGet, path, nil, &out, func(s Scheduler) error {
		jobs, err := s.List(ctx, jobFilter(agent, all))
		out = jobsWire(jobs)
		return err
	})
	return out, err
}

// SchedulerAdd stores a new job.
func (a *Admin) SchedulerAdd(ctx context.Context, req protocol.SchedAdd) (protocol.SchedJob, error) {
	var out protocol.SchedJob
	err := a.withScheduler(ctx, http.MethodPost, protocol.ControlScheduler, req, &out, func(s Scheduler) error {
		j, err := s.Add(ctx, addRequest(req))
		out = jobWire(j)
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
	err := a.withScheduler(ctx, method, path, nil, &out, func(s Scheduler) error {
		j, err := schedControl(ctx, s, action, id)
		out = jobWire(j)
		return err
	})
	return out, err
}

// SchedulerRuns is a job's run history, newest first.
func (a *Admin) SchedulerRuns(ctx context.Context, id string) (protocol.SchedRunList, error) {
	var out protocol.SchedRunList
	err := a.withScheduler(ctx, http.MethodGet, protocol.ControlSchedJob+"/"+url.PathEscape(id)+"/runs", nil, &out,
		func(s Scheduler) error {
			runs, err := s.Runs(ctx, id, 0)
			out = runsWire(runs)
			return err
		})
	return out, err
}

// withScheduler sends the request to the running daemon, or, when none
// runs, calls offline with a Scheduler on the store (one that runs no
// jobs).
func (a *Admin) withScheduler(ctx context.Context, method, path string, in, out any, offline func(Scheduler) error) error {
	l, err := a.load()
	if err != nil {
		return err
	}
	if ok, err := controlDo(ctx, l.Paths.Socket, method, path, in, out); ok {
		return err
	}
	if !l.Config.Scheduler.Enabled {
		return &userError{msg: "the scheduler is off: set scheduler.enabled: true in " + l.Paths.ConfigFile}
	}
	db, err := store.Open(l.Paths.DB, store.Options{PIDFile: l.Paths.PIDFile})
	if err != nil {
		return err
	}
	o := l.Scheduler.Options()
	o.DB = db
	s, err := scheduler.New(o)
	if err == nil {
		err = schedError(offline(s))
	}
	if cerr := db.Close(); cerr != nil && err == nil {
		return cerr
	}
	return err
}

func schedControl(ctx context.Context, s Scheduler, action, id string) (scheduler.Job, error) {
	switch action {
	case "cancel":
		return s.Cancel(ctx, id)
	case "pause":
		return s.Pause(ctx, id)
	case "resume":
		return s.Resume(ctx, id)
	}
	return scheduler.Job{}, beamclaw.E("scheduler", beamclaw.KindInvalid, "unknown action "+action, nil)
}

// schedError keeps a scheduler error's own words for the user.
func schedError(err error) error {
	var be *beamclaw.Error
	if err != nil && errors.As(err, &be) && beamclaw.KindOf(err) != beamclaw.KindInternal {
		return &userError{msg: beamclaw.UserMessage(err), err: err}
	}
	return err
}

func jobFilter(agent string, all bool) scheduler.Filter {
	f := scheduler.Filter{Agent: agent}
	if !all {
		f.States = []scheduler.State{scheduler.StateActive, scheduler.StatePaused}
	}
	return f
}

func addRequest(r protocol.SchedAdd) scheduler.AddRequest {
	return scheduler.AddRequest{Agent: r.Agent, UserID: r.User, Schedule: r.Schedule, TimeZone: r.TimeZone,
		Prompt: r.Prompt, Delivery: r.Deliver, Session: scheduler.SessionMode(r.Session), Misfire: scheduler.Misfire(r.Misfire)}
}

func jobWire(j scheduler.Job) protocol.SchedJob {
	return protocol.SchedJob{ID: j.ID, Agent: j.Agent, User: j.UserID, Prompt: j.Prompt, Schedule: j.Schedule.Spec,
		TimeZone: j.Schedule.TZ, Deliver: j.Delivery.String(), Session: string(j.Session), Misfire: string(j.Misfire),
		Heartbeat: j.Heartbeat, State: string(j.State), Reason: j.Reason, NextRunAt: j.NextRunAt, LastRunAt: j.LastRunAt,
		Running: j.Running(), FireCount: j.FireCount, ConsecutiveErrors: j.ConsecutiveErrors, LastError: j.LastError,
		Created: j.Created}
}

func jobsWire(jobs []scheduler.Job) protocol.SchedJobList {
	out := protocol.SchedJobList{Jobs: make([]protocol.SchedJob, 0, len(jobs))}
	for _, j := range jobs {
		out.Jobs = append(out.Jobs, jobWire(j))
	}
	return out
}

func runsWire(runs []scheduler.Run) protocol.SchedRunList {
	out := protocol.SchedRunList{Runs: make([]protocol.SchedRun, 0, len(runs))}
	for _, r := range runs {
		out.Runs = append(out.Runs, protocol.SchedRun{Seq: r.Seq, Due: r.Due, Started: r.Started, Finished: r.Finished,
			Outcome: string(r.Outcome), Missed: r.Missed, Reason: r.Reason, Error: r.Error, Excerpt: r.Excerpt,
			SessionID: r.SessionID})
	}
	return out
}

// Control routes.

func (c *control) schedulerRoutes() []gateway.Mount {
	return []gateway.Mount{
		{Method: http.MethodGet, Pattern: protocol.ControlScheduler, Handler: http.HandlerFunc(c.schedList)},
		{Method: http.MethodPost, Pattern: protocol.ControlScheduler, Handler: http.HandlerFunc(c.schedAdd)},
		{Method: http.MethodDelete, Pattern: protocol.ControlSchedJob + "/{id}", Handler: c.schedAction("cancel")},
		{Method: http.MethodPost, Pattern: protocol.ControlSchedJob + "/{id}/pause", Handler: c.schedAction("pause")},
		{Method: http.MethodPost, Pattern: protocol.ControlSchedJob + "/{id}/resume", Handler: c.schedAction("resume")},
		{Method: http.MethodGet, Pattern: protocol.ControlSchedJob + "/{id}/runs", Handler: http.HandlerFunc(c.schedRuns)},
	}
}

func (c *control) schedOff(w http.ResponseWriter) bool {
	if c.scheduler == nil {
		controlError(w, http.StatusNotFound, "the scheduler is off (scheduler.enabled: false)")
		return true
	}
	return false
}

func (c *control) schedList(w http.ResponseWriter, r *http.Request) {
	if c.schedOff(w) {
		return
	}
	q := r.URL.Query()
	jobs, err := c.scheduler.List(r.Context(), jobFilter(q.Get("agent"), q.Get("all") == "1"))
	if err != nil {
		controlError(w, schedStatus(err), beamclaw.UserMessage(err))
		return
	}
	controlJSON(w, http.StatusOK, jobsWire(jobs))
}

func (c *control) schedAdd(w http.ResponseWriter, r *http.Request) {
	if c.schedOff(w) {
		return
	}
	var req protocol.SchedAdd
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		controlError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return
	}
	j, err := c.scheduler.Add(r.Context(), addRequest(req))
	if err != nil {
		controlError(w, schedStatus(err), beamclaw.UserMessage(err))
		return
	}
	controlJSON(w, http.StatusOK, jobWire(j))
}

func (c *control) schedAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if c.schedOff(w) {
			return
		}
		j, err := schedControl(r.Context(), c.scheduler, action, jobIDOf(r))
		if err != nil {
			controlError(w, schedStatus(err), beamclaw.UserMessage(err))
			return
		}
		controlJSON(w, http.StatusOK, jobWire(j))
	}
}

func (c *control) schedRuns(w http.ResponseWriter, r *http.Request) {
	if c.schedOff(w) {
		return
	}
	runs, err := c.scheduler.Runs(r.Context(), jobIDOf(r), 0)
	if err != nil {
		controlError(w, schedStatus(err), beamclaw.UserMessage(err))
		return
	}
	controlJSON(w, http.StatusOK, runsWire(runs))
}

// jobIDOf is the {id} of a /control/scheduler/jobs/{id}[/...] route.
func jobIDOf(r *http.Request) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, protocol.ControlSchedJob+"/"), "/")
	if u, err := url.PathUnescape(id); err == nil {
		return u
	}
	return id
}

func schedStatus(err error) int {
	switch beamclaw.KindOf(err) {
	case beamclaw.KindInvalid:
		return http.StatusBadRequest
	case beamclaw.KindForbidden:
		return http.StatusForbidden
	}
	return kindStatus(err)
}
