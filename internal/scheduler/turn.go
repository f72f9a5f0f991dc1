package scheduler

import (
	"context"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Turn is one agent turn a job asks for.
type Turn struct {
	JobID  string
	Agent  string
	UserID string
	// SessionKey is "" for the user's own session with the agent
	// (session mode shared); otherwise the key of a session apart from
	// it: "sched:<job id>" for an isolated job, "heartbeat:<agent>" for
	// a heartbeat.
	SessionKey string
	Prompt     string
	// Autonomy of the run. Nobody answers approvals of a scheduled run:
	// a tool that would ask must be denied with a note saying so.
	Autonomy beamclaw.Autonomy
	// Trust is the channel whose trust the run has ("" = the scheduler's
	// own, local): the remote channel a job was made through
	// (Job.Origin), whose ceiling and remote rules the run must follow
	// (beamclaw.Inbound.Trust).
	Trust beamclaw.Channel
	// Heartbeat marks a heartbeat check-in.
	Heartbeat bool
	// LightContext: give the model only the prompt (HEARTBEAT.md and a
	// short instruction), not the session's history.
	LightContext bool
	// MaxTokens caps the tokens the turn may use (0: no cap).
	MaxTokens int
	// Due is when the run was due.
	Due time.Time
}

// Result is a turn's final answer.
type Result struct {
	Text string
}

// Turns runs agent turns; the daemon implements it over the session
// manager.
type Turns interface {
	// SessionID names the session t runs in (for events and run records).
	SessionID(t Turn) string
	// Run runs t to its final answer.
	Run(ctx context.Context, t Turn) (Result, error)
}

// turn builds the Turn of a run of j.
func (s *Scheduler) turn(j Job, due time.Time) Turn {
	t := Turn{
		JobID: j.ID, Agent: j.Agent, UserID: j.UserID, Prompt: j.Prompt,
		Autonomy: j.Autonomy, Heartbeat: j.Heartbeat, Due: due,
	}
	if t.Autonomy == "" {
		t.Autonomy = s.opts.DefaultAutonomy
	}
	j.Origin.limit(&t)
	switch {
	case j.Heartbeat:
		t.SessionKey, t.LightContext, t.MaxTokens = beamclaw.HeartbeatThreadPrefix+j.Agent, true, s.opts.Heartbeat.MaxTokens
	case j.Session == SessionIsolated:
		t.SessionKey = "sched:" + j.ID
	}
	return t
}
