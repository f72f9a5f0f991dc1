package scheduler

import (
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// State is where a job is in its life.
type State string

// Job states. Active and paused jobs count toward MaxJobsPerAgent.
const (
	StateActive State = "active" // the runner keeps a timer for it
	StatePaused State = "paused" // by hand, or automatically after MaxErrors failures
	StateDone   State = "done"   // finished (a one-shot ran, or no instant is left) or canceled
	StateFailed State = "failed" // cannot run any more (its schedule no longer loads)
)

// SessionMode says which session a job's turns run in.
type SessionMode string

// Session modes.
const (
	SessionShared   SessionMode = "shared"   // the user's own session with the agent
	SessionIsolated SessionMode = "isolated" // a session of the job's own
)

// Misfire is what happens to a run that was due while beamclaw was not
// running (or that a stop interrupted).
type Misfire string

// Misfire policies.
const (
	MisfireRunOnce Misfire = "run_once" // run once now for all that was missed (within the grace window)
	MisfireSkip    Misfire = "skip"     // record the missed runs as skipped, wait for the next one
)

// Outcome is how a run ended.
type Outcome string

// Run outcomes.
const (
	OutcomeRunning     Outcome = "running"     // started and not finished yet
	OutcomeOK          Outcome = "ok"          // answered and delivered
	OutcomeFailed      Outcome = "failed"      // the turn or the delivery failed
	OutcomeSkipped     Outcome = "skipped"     // not run: policy skip, still running, nothing to do
	OutcomeSuppressed  Outcome = "suppressed"  // a heartbeat answered HEARTBEAT_OK; nothing delivered
	OutcomeMissed      Outcome = "missed"      // not run: due longer ago than the grace window
	OutcomeInterrupted Outcome = "interrupted" // a stop or crash ended it midway
)

// Job is a scheduled job as stored in bbolt.
type Job struct {
	ID        string            `json:"id"`
	Agent     string            `json:"agent"`
	UserID    string            `json:"user_id"`
	Prompt    string            `json:"prompt"`
	Schedule  Schedule          `json:"schedule"`
	Delivery  Delivery          `json:"delivery"`
	Session   SessionMode       `json:"session"`
	Misfire   Misfire           `json:"misfire"`
	Grace     time.Duration     `json:"grace,omitempty"`    // 0: no limit
	Autonomy  beamclaw.Autonomy `json:"autonomy,omitempty"` // "": Options.DefaultAutonomy at run time
	Heartbeat bool              `json:"heartbeat,omitempty"`
	// Origin is the trust of the conversation that made the job (the
	// scheduler tool); nil: made by the owner, local trust.
	Origin *Origin `json:"origin,omitempty"`

	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"` // why it is paused, done or failed

	NextRunAt    time.Time `json:"next_run_at,omitzero"`
	LastRunAt    time.Time `json:"last_run_at,omitzero"`
	RunningSince time.Time `json:"running_since,omitzero"` // written before a run starts
	RunningDue   time.Time `json:"running_due,omitzero"`   // the instant the running run was due
	RunningSeq   uint64    `json:"running_seq,omitempty"`  // its run record

	FireCount         int64  `json:"fire_count"`
	ConsecutiveErrors int    `json:"consecutive_errors"`
	LastError         string `json:"last_error,omitempty"`

	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// Running reports whether a run of the job has started and not finished.
func (j Job) Running() bool { return !j.RunningSince.IsZero() }

// Run is one entry of a job's run history.
type Run struct {
	Seq      uint64    `json:"seq"`
	Due      time.Time `json:"due"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	Outcome  Outcome   `json:"outcome"`
	// Missed counts the due instants this entry stands for beyond its own:
	// runs coalesced into one by run_once, or skipped together.
	Missed    int    `json:"missed,omitempty"`
	Reason    string `json:"reason,omitempty"` // why skipped, missed or interrupted
	Error     string `json:"error,omitempty"`  // why failed (scrubbed)
	Excerpt   string `json:"excerpt,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// excerptLen bounds Run.Excerpt, in runes.
const excerptLen = 200

func excerpt(s string) string {
	r := []rune(s)
	if len(r) <= excerptLen {
		return s
	}
	return string(r[:excerptLen-1]) + "…"
}
