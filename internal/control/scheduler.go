package control

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
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

// SchedControl cancels, pauses or resumes job id (action "cancel",
// "pause" or "resume").
func SchedControl(ctx context.Context, s Scheduler, action, id string) (scheduler.Job, error) {
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

// JobFilter is the filter of a job list: agent's jobs ("" = every agent's), the
// done and failed ones too when all.
func JobFilter(agent string, all bool) scheduler.Filter {
	f := scheduler.Filter{Agent: agent}
	if !all {
		f.States = []scheduler.State{scheduler.StateActive, scheduler.StatePaused}
	}
	return f
}

// AddRequest is the scheduler's form of a job to add.
func AddRequest(r protocol.SchedAdd) scheduler.AddRequest {
	return scheduler.AddRequest{Agent: r.Agent, UserID: r.User, Schedule: r.Schedule, TimeZone: r.TimeZone,
		Prompt: r.Prompt, Delivery: r.Deliver, Session: scheduler.SessionMode(r.Session), Misfire: scheduler.Misfire(r.Misfire)}
}

// JobWire is the wire form of a job.
func JobWire(j scheduler.Job) protocol.SchedJob {
	return protocol.SchedJob{ID: j.ID, Agent: j.Agent, User: j.UserID, Prompt: j.Prompt, Schedule: j.Schedule.Spec,
		TimeZone: j.Schedule.TZ, Deliver: j.Delivery.String(), Session: string(j.Session), Misfire: string(j.Misfire),
		Heartbeat: j.Heartbeat, State: string(j.State), Reason: j.Reason, NextRunAt: j.NextRunAt, LastRunAt: j.LastRunAt,
		Running: j.Running(), FireCount: j.FireCount, ConsecutiveErrors: j.ConsecutiveErrors, LastError: j.LastError,
		Created: j.Created}
}

// JobsWire is the wire form of a job list.
func JobsWire(jobs []scheduler.Job) protocol.SchedJobList {
	out := protocol.SchedJobList{Jobs: make([]protocol.SchedJob, 0, len(jobs))}
	for _, j := range jobs {
		out.Jobs = append(out.Jobs, JobWire(j))
	}
	return out
}

// RunsWire is the wire form of a job's runs.
func RunsWire(runs []scheduler.Run) protocol.SchedRunList {
	out := protocol.SchedRunList{Runs: make([]protocol.SchedRun, 0, len(runs))}
	for _, r := range runs {
		out.Runs = append(out.Runs, protocol.SchedRun{Seq: r.Seq, Due: r.Due, Started: r.Started, Finished: r.Finished,
			Outcome: string(r.Outcome), Missed: r.Missed, Reason: r.Reason, Error: r.Error, Excerpt: r.Excerpt,
			SessionID: r.SessionID})
	}
	return out
}

func (c *handlers) schedulerRoutes() []gateway.Mount {
	return []gateway.Mount{
		{Method: http.MethodGet, Pattern: protocol.ControlScheduler, Handler: http.HandlerFunc(c.schedList)},
		{Method: http.MethodPost, Pattern: protocol.ControlScheduler, Handler: http.HandlerFunc(c.schedAdd)},
		{Method: http.MethodDelete, Pattern: protocol.ControlSchedJob + "/{id}", Handler: c.schedAction("cancel")},
		{Method: http.MethodPost, Pattern: protocol.ControlSchedJob + "/{id}/pause", Handler: c.schedAction("pause")},
		{Method: http.MethodPost, Pattern: protocol.ControlSchedJob + "/{id}/resume", Handler: c.schedAction("resume")},
		{Method: http.MethodGet, Pattern: protocol.ControlSchedJob + "/{id}/runs", Handler: http.HandlerFunc(c.schedRuns)},
	}
}

func (c *handlers) schedOff(w http.ResponseWriter) bool {
	if c.scheduler == nil {
		writeError(w, http.StatusNotFound, "the scheduler is off (scheduler.enabled: false)")
		return true
	}
	return false
}

func (c *handlers) schedList(w http.ResponseWriter, r *http.Request) {
	if c.schedOff(w) {
		return
	}
	q := r.URL.Query()
	jobs, err := c.scheduler.List(r.Context(), JobFilter(q.Get("agent"), q.Get("all") == "1"))
	schedReply(w, jobs, err, JobsWire)
}

func (c *handlers) schedAdd(w http.ResponseWriter, r *http.Request) {
	if c.schedOff(w) {
		return
	}
	var req protocol.SchedAdd
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return
	}
	j, err := c.scheduler.Add(r.Context(), AddRequest(req))
	schedReply(w, j, err, JobWire)
}

func (c *handlers) schedAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if c.schedOff(w) {
			return
		}
		j, err := SchedControl(r.Context(), c.scheduler, action, jobIDOf(r))
		schedReply(w, j, err, JobWire)
	}
}

func (c *handlers) schedRuns(w http.ResponseWriter, r *http.Request) {
	if c.schedOff(w) {
		return
	}
	runs, err := c.scheduler.Runs(r.Context(), jobIDOf(r), 0)
	schedReply(w, runs, err, RunsWire)
}

// schedReply writes the wire form of a scheduler's answer, or its error
// with the status schedStatus maps it to.
func schedReply[T, W any](w http.ResponseWriter, v T, err error, wire func(T) W) {
	if err != nil {
		writeError(w, kindStatus(err), beamclaw.UserMessage(err))
		return
	}
	writeJSON(w, http.StatusOK, wire(v))
}

// jobIDOf is the {id} of a /control/scheduler/jobs/{id}[/...] route.
func jobIDOf(r *http.Request) string { return idAfter(r, protocol.ControlSchedJob) }
