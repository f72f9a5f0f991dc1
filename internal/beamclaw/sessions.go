package beamclaw

import "time"

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
}
