package protocol

import "time"

// Control-socket paths of the sessions (beamclaw sessions ...).
const (
	// ControlSessions answers GET with SessionList; query: agent, user,
	// channel, state (active, live, archived, waiting, working, idle), archived=1 (archived ones
	// too), q (text the history holds), limit and cursor (paging).
	ControlSessions = "/control/sessions"
	// ControlSession + "/{id}" answers GET with SessionDetail and DELETE
	// with 204; + "/{id}/export" answers GET (?format=json or markdown)
	// with the SessionDetail or its Markdown as an attachment; + "/{id}/reset"
	// answers POST by emptying the history (the chat's /reset) and
	// answering the SessionDetail.
	ControlSession = "/control/sessions"
)

// SessionInfo describes one stored session.
type SessionInfo struct {
	ID       string    `json:"id"`
	User     string    `json:"user"`
	Agent    string    `json:"agent"`
	Channel  string    `json:"channel"`
	Thread   string    `json:"thread,omitempty"` // a conversation of its own (a chat UI's, or a named one)
	Title    string    `json:"title"`            // the start of its first message
	Messages int       `json:"messages"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Archived time.Time `json:"archived,omitzero"` // set once core.session_ttl_seconds passed
	Live     bool      `json:"live,omitempty"`    // in the daemon's memory now
	// State: "waiting" (on you: a tool call waits for approval), "working"
	// (a run in flight or queued), "idle" or "archived".
	State string `json:"state"`
}

// SessionList is the answer of GET /control/sessions; with ?limit=N a
// page, NextCursor (as ?cursor=) asking the next one ("" at the end).
type SessionList struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// SessionDetail is one session with its history.
type SessionDetail struct {
	Session  SessionInfo `json:"session"`
	Messages []WSMessage `json:"messages"`
	// Usage sums the session's model calls in the usage ledger: tokens
	// in, out and cached (read from the provider's prompt cache); nil
	// when no call is recorded.
	Usage *UsageRow `json:"usage,omitempty"`
	// Outputs are the tool results the session kept whole, whose tool
	// messages hold only their head and tail: in an export (sessions
	// export, users export), not in a show.
	Outputs []ToolOutput `json:"outputs,omitempty"`
}

// ToolOutput is a tool result a session kept whole (scrubbed), named by
// the tool message whose ToolCallID is its own.
type ToolOutput struct {
	ID         string `json:"id"` // the handle tool_output reads it by
	ToolCallID string `json:"tool_call_id"`
	Tool       string `json:"tool"`
	Bytes      int    `json:"bytes"`
	Content    string `json:"content"`
}

// SessionQuery selects sessions (beamclaw sessions list).
type SessionQuery struct {
	Agent    string `json:"agent,omitempty"`
	User     string `json:"user,omitempty"`
	Archived bool   `json:"archived,omitempty"` // archived sessions too
	Search   string `json:"search,omitempty"`   // only those whose history holds this text
}
