package protocol

import "time"

// Control routes of the scheduler (the control socket only).
const (
	// ControlScheduler answers GET with SchedJobList (query: agent,
	// all=1 for done and failed jobs too) and POST SchedAdd with the new
	// SchedJob.
	ControlScheduler = "/control/scheduler"
	// ControlSchedJob + "/{id}" answers GET with a SchedJob and DELETE by
	// canceling the job; + "/{id}/pause" and "/{id}/resume" (POST) pause
	// and resume it; + "/{id}/runs" (GET) is its SchedRunList.
	ControlSchedJob = "/control/scheduler/jobs"
)

// SchedAdd asks for a new job (`beamclaw scheduler add`).
type SchedAdd struct {
	Agent    string `json:"agent"`
	User     string `json:"user"`     // whose session a shared job runs in
	Schedule string `json:"schedule"` // "in 20m", "at 2026-12-01T09:00", "every 2h", "cron 0 9 * * 1-5", "random 3 per 1d"
	TimeZone string `json:"time_zone,omitempty"`
	Prompt   string `json:"prompt"`
	Deliver  string `json:"deliver"` // telegram:<chat>, tui, ws, webhook:<URL>, silent
	Session  string `json:"session,omitempty"`
	Misfire  string `json:"misfire,omitempty"`
}

// SchedJob is a scheduled job as the CLI shows it.
type SchedJob struct {
	ID                string    `json:"id"`
	Agent             string    `json:"agent"`
	User              string    `json:"user"`
	Prompt            string    `json:"prompt"`
	Schedule          string    `json:"schedule"`
	TimeZone          string    `json:"time_zone,omitempty"`
	Deliver           string    `json:"deliver"`
	Session           string    `json:"session"`
	Misfire           string    `json:"misfire"`
	Heartbeat         bool      `json:"heartbeat,omitempty"`
	State             string    `json:"state"` // active, paused, done, failed
	Reason            string    `json:"reason,omitempty"`
	NextRunAt         time.Time `json:"next_run_at,omitzero"`
	LastRunAt         time.Time `json:"last_run_at,omitzero"`
	Running           bool      `json:"running,omitempty"`
	FireCount         int64     `json:"fire_count"`
	ConsecutiveErrors int       `json:"consecutive_errors"`
	LastError         string    `json:"last_error,omitempty"`
	Created           time.Time `json:"created"`
}

// SchedJobList answers GET /control/scheduler.
type SchedJobList struct {
	Jobs []SchedJob `json:"jobs"`
}

// SchedRun is one entry of a job's run history.
type SchedRun struct {
	Seq       uint64    `json:"seq"`
	Due       time.Time `json:"due"`
	Started   time.Time `json:"started,omitzero"`
	Finished  time.Time `json:"finished,omitzero"`
	Outcome   string    `json:"outcome"` // running, ok, failed, skipped, suppressed, missed, interrupted
	Missed    int       `json:"missed,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Error     string    `json:"error,omitempty"`
	Excerpt   string    `json:"excerpt,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
}

// SchedRunList answers GET /control/scheduler/jobs/{id}/runs, newest first.
type SchedRunList struct {
	Runs []SchedRun `json:"runs"`
}
