package beamclaw

import "time"

// EphemeralPrefix starts the id of a run's stand-in session when it is
// stored nowhere (a stateless request, a light-context heartbeat).
const EphemeralPrefix = "ephemeral-"

// HeartbeatThreadPrefix starts the thread of an agent's heartbeat session
// ("heartbeat:<agent>").
const HeartbeatThreadPrefix = "heartbeat:"

// SessionSummary describes a stored session for listings (beamclaw
// sessions, the terminal UI's /sessions).
type SessionSummary struct {
	ID       string
	UserID   string
	AgentID  string
	Channel  Channel // the channel that created it
	Thread   string  // "" for a user's default session
	Title    string  // the start of its first user message
	Messages int
	Created  time.Time
	Updated  time.Time
	Archived time.Time // zero while active
	Live     bool      // in memory now
	Waiting  bool      // a tool call waits for its person's approval
	Working  bool      // a run is in flight or queued
}

// State is how a session stands, for a person looking at a list:
// "waiting" (on you: an approval), "working", "idle" or "archived".
func (s SessionSummary) State() string {
	switch {
	case !s.Archived.IsZero():
		return "archived"
	case s.Waiting:
		return "waiting"
	case s.Working:
		return "working"
	}
	return "idle"
}
