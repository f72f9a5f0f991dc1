package protocol

import "time"

// Control-socket paths of the people (beamclaw users ...). A user is
// named by the query parameter user (ids hold ':').
const (
	// ControlUsers answers GET with UserList; GET with ?user=ID answers
	// UserDetail; DELETE with ?user=ID forgets the user (their sessions,
	// their own memory in every agent, their links) and answers
	// UserForgotten.
	ControlUsers = "/control/users"
	// ControlUserExport answers GET ?user=ID with UserExport.
	ControlUserExport = "/control/users/export"
	// ControlUserLinkCode takes a LinkRequest (account) and answers a
	// LinkCode to type on the person's other account.
	ControlUserLinkCode = "/control/users/link-code"
	// ControlUserLink takes a LinkRequest (account, code) and answers the
	// person's UserDetail.
	ControlUserLink = "/control/users/link"
	// ControlUserUnlink takes a LinkRequest (account) and answers
	// Unlinked.
	ControlUserUnlink = "/control/users/unlink"
)

// UserInfo is one person: their id (the account their linked accounts
// resolve to), the accounts linked to it, their sessions and the agents
// that keep memory of their own for them.
type UserInfo struct {
	ID       string    `json:"id"`
	Accounts []string  `json:"accounts,omitempty"` // linked accounts besides ID
	Sessions int       `json:"sessions"`
	Memory   []string  `json:"memory,omitempty"` // agents with memory of this user's own
	Updated  time.Time `json:"updated,omitzero"` // their newest session's
}

// UserList is the answer of GET /control/users.
type UserList struct {
	Users []UserInfo `json:"users"`
}

// UserDetail is one person with their sessions and memory.
type UserDetail struct {
	User     UserInfo          `json:"user"`
	Sessions []SessionInfo     `json:"sessions"`
	Memory   []UserAgentMemory `json:"memory,omitempty"`
}

// UserAgentMemory is what one agent keeps of one user's own.
type UserAgentMemory struct {
	Agent string `json:"agent"`
	// Account is the linked account this memory is of, when it is not
	// the person's own id (kept from before the link).
	Account   string            `json:"account,omitempty"`
	Files     map[string]string `json:"files,omitempty"`      // USER.md, MEMORY.md
	DailyLogs map[string]string `json:"daily_logs,omitempty"` // date -> log
	Notes     []UserNote        `json:"notes,omitempty"`
}

// UserNote is one keyed note (workspace_memory remember).
type UserNote struct {
	Key      string    `json:"key"`
	Value    string    `json:"value"`
	Category string    `json:"category,omitempty"`
	Updated  time.Time `json:"updated,omitzero"`
}

// UserExport is everything beamclaw keeps of one person: their sessions
// with their history, and their own memory in every agent.
type UserExport struct {
	User     UserInfo          `json:"user"`
	Exported time.Time         `json:"exported"`
	Sessions []SessionDetail   `json:"sessions"`
	Memory   []UserAgentMemory `json:"memory"`
}

// UserForgotten reports what forgetting a user removed.
type UserForgotten struct {
	User     string   `json:"user"`
	Sessions int      `json:"sessions"`
	Memory   []string `json:"memory,omitempty"`   // agents whose memory of them went
	Unlinked []string `json:"unlinked,omitempty"` // accounts no longer linked
}

// LinkRequest names an account and, to link, the code shown on another.
type LinkRequest struct {
	Account string `json:"account"`
	Code    string `json:"code,omitempty"`
}

// LinkCode is a code to type on the person's other account.
type LinkCode struct {
	Account string    `json:"account"`
	Code    string    `json:"code"`
	Expires time.Time `json:"expires"`
}

// Unlinked names the accounts an unlink separated.
type Unlinked struct {
	Accounts []string `json:"accounts"`
}
