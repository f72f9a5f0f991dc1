package protocol

import "time"

// ControlApprovals answers GET with ApprovalList: the approvals waiting
// in every live session. ControlApprovals + "/{id}" takes an
// ApprovalAnswer (POST) and answers ApprovalDecided: only an approval
// asked on the terminal (Answerable), docs/people.md.
const ControlApprovals = "/control/approvals"

// PendingApproval is a tool call waiting for a person's yes or no.
type PendingApproval struct {
	ID      string `json:"id"`
	Session string `json:"session"`
	Agent   string `json:"agent"`
	User    string `json:"user"`    // the session's user
	Channel string `json:"channel"` // where it was asked (tui: the terminal)
	Tool    string `json:"tool"`
	// Args are the call's arguments, scrubbed of secrets, on one line and
	// cut to 200 characters.
	Args  string    `json:"args"`
	Risk  string    `json:"risk,omitempty"`
	Asked time.Time `json:"asked"`
	// Answerable: the admin API may answer it (it was asked on the
	// terminal); any other is its person's, on the channel it was asked on.
	Answerable bool `json:"answerable"`
}

// ApprovalList is the answer of GET /control/approvals, oldest first.
type ApprovalList struct {
	Approvals []PendingApproval `json:"approvals"`
}

// ApprovalAnswer answers one approval: its session and yes, no or always
// (the tool with these arguments for the rest of the session).
type ApprovalAnswer struct {
	Session  string `json:"session"`
	Decision string `json:"decision"`
}

// ApprovalDecided is what was answered.
type ApprovalDecided struct {
	ID       string `json:"id"`
	Session  string `json:"session"`
	Decision string `json:"decision"` // allow, deny or always
}
