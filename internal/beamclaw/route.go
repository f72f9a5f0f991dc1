package beamclaw

import (
	"errors"
	"time"
)

// RunEventType names what happened during a run.
type RunEventType string

// Run event types, in the order a run usually produces them.
const (
	EvState           RunEventType = "state"            // loop state changed (Text holds the state)
	EvChunk           RunEventType = "chunk"            // a piece of streamed answer text
	EvToolStart       RunEventType = "tool_start"       // a tool is about to run
	EvToolResult      RunEventType = "tool_result"      // a tool finished (scrubbed result)
	EvApprovalRequest RunEventType = "approval_request" // the run waits for a decision
	EvApprovalResult  RunEventType = "approval_result"  // a decision was taken
	EvElicitation     RunEventType = "elicitation"      // a tool asks the user a question and waits
	EvElicitResult    RunEventType = "elicit_result"    // the question was answered (Text holds the action)
	EvWaiting         RunEventType = "waiting"          // queued behind a run that waits for the user (Text says on what)
	EvNeedsApproval   RunEventType = "needs_approval"   // a call needed an approval nobody on this route can give: it was not run (Tool says which, Text is its result)
	EvFinal           RunEventType = "final"            // the run's answer; the last event
	EvError           RunEventType = "error"            // the run failed; the last event
)

// RunEvent is one thing a run tells the channel it came from.
type RunEvent struct {
	Type      RunEventType     `json:"type"`
	RunID     string           `json:"run_id"`
	SessionID string           `json:"session_id"`
	Text      string           `json:"text,omitempty"`
	Tool      *ToolCall        `json:"tool,omitempty"`
	Result    *ToolResult      `json:"result,omitempty"`
	Approval  *ApprovalRequest `json:"approval,omitempty"`
	Elicit    *Elicitation     `json:"elicitation,omitempty"`
	Usage     *Usage           `json:"usage,omitempty"`
	// Calls are an EvFinal's calls of the client's own functions
	// (Inbound.Functions): the run is parked until their results come.
	Calls []ToolCall `json:"calls,omitempty"`
	// An EvError's kind (KindInternal when unknown) and, for an upstream
	// that asked for it, how long to wait before retrying.
	Kind       Kind          `json:"kind,omitempty"`
	RetryAfter time.Duration `json:"retry_after,omitempty"`
}

// Terminal reports whether e ends its run.
func (e RunEvent) Terminal() bool { return e.Type == EvFinal || e.Type == EvError }

// Route is where a run's events go: the channel the message came from.
// Deliver must not block the session for long; a route whose consumer is
// gone or too slow drops events (it is the consumer's loss, never the
// session's). Every run delivers exactly one terminal event.
type Route interface {
	Deliver(ev RunEvent)
}

// Decision answers an approval request.
type Decision string

// Decisions.
const (
	Allow  Decision = "allow"  // run this call once
	Always Decision = "always" // run it, and this tool with this argument shape, for the rest of the session
	Deny   Decision = "deny"
)

// ParseDecision accepts allow/yes/y, always/a, deny/no/n (and their
// slash-command forms /yes /no /always).
func ParseDecision(s string) (Decision, bool) {
	if len(s) > 0 && s[0] == '/' {
		s = s[1:]
	}
	switch s {
	case "allow", "yes", "y", "once":
		return Allow, true
	case "always", "a":
		return Always, true
	case "deny", "no", "n":
		return Deny, true
	}
	return "", false
}

// ApprovalRequest asks a person whether a tool call may run.
type ApprovalRequest struct {
	ID       string `json:"id"`
	ToolName string `json:"tool_name"`
	Args     string `json:"args"` // scrubbed
	Risk     string `json:"risk"`
	Prompt   string `json:"prompt"`
}

// Inbound is a message arriving from a channel for an agent.
type Inbound struct {
	Channel   Channel
	UserID    string // already prefixed ("tg:123") or BEAMCLAW_USER
	AgentID   string
	MessageID string // channel's id, for de-duplication ("" = none)
	// MessageDigest is a digest of the request behind MessageID (an
	// Idempotency-Key's body, a /ws message's content): a resend with the
	// same id and another digest is refused with ErrMessageReused rather
	// than answered with the first message's answer ("" = not compared).
	MessageDigest string
	Content       string
	Attachments   []Attachment
	Autonomy      Autonomy // the channel's ceiling; "" = agent default
	// Trust names the channel whose trust the run has when it is not
	// Channel's own ("" = Channel): a scheduled job made through a remote
	// channel runs on ChannelScheduler under that channel's ceiling
	// (core.channel_autonomy) and, being remote, its rules
	// (tools.remote_high_risk).
	Trust Channel
	// NoApproval: nobody can answer an approval request on this route
	// (the OpenAI-compatible API); calls that would ask are denied at once,
	// and the answer says why.
	NoApproval bool
	// Origin names the conversation endpoint the message came from: the
	// channel and its connection or chat ("ws:<conn>", "tui:<conn>",
	// "telegram:<chat>"; "telegram:<chat>:<member>" in a group chat, whose
	// approvals are the member's). An approval asked for a run belongs to
	// its origin: only a decision from the same origin answers it (unless
	// core.approval_cross_channel lets the same user answer elsewhere).
	// Empty for routes that can never approve.
	Origin string
	Route  Route
	// Sampling is the client's sampling controls for this turn (the
	// OpenAI-compatible API); nil leaves the provider's defaults.
	Sampling *Sampling
	// Session, when set, is the id of the user's session to continue (a
	// resume): it must exist and belong to UserID and AgentID.
	Session string
	// Thread names a conversation of the user with the agent kept apart
	// from their default session ("" = the default session).
	Thread string
	// Functions are the client's own function tools (the OpenAI APIs'
	// "tools"), offered to the model beside the agent's: a call to one
	// ends the run with the call (EvFinal's Calls), and the run is parked
	// in the session until the client sends the call's result
	// (ToolResults).
	Functions []ToolDef
	// ToolResults, when set, are the client's results of the function
	// calls the session's last run ended with: they are the new input
	// instead of Content, and the run that answers them continues that
	// turn. Every call still open must have its result.
	ToolResults []ToolResult
	// Instructions are the client's instructions for this run only (the
	// Responses API's "instructions"): added to the system prompt of its
	// model calls, not stored in the conversation.
	Instructions string
	// Response, when set, names the Responses API response this message
	// starts (see ResponseRef): the session stores its record with the
	// message and the run's answer, in the same writes.
	Response *ResponseRef
	// From, when set, continues a session of the same user and agent
	// from a point of its history (a Responses API previous_response_id):
	// at the end of its history the message continues that session;
	// before it, a new thread starts as a copy of the history up to that
	// point (a branch), and the original is left untouched.
	From *Point
	// Transcript, when set, is the client's own copy of the conversation
	// before Content, sent whole with every message (chat UIs on the
	// OpenAI API): the session is found by it and made to match it.
	Transcript *Transcript
	// Rejoin: not a message but a person's new connection to Session on
	// Origin, sent on to the cluster node where the session lives: its
	// waiting approvals are asked again on Route, and the run in flight's
	// events follow there (session.Manager.Rejoin).
	Rejoin bool
	// AckOnAnswer: the channel acknowledges the message only with its
	// answer (the OpenAI-compatible API: the client holds the message until
	// the response ends). Its user message may then be stored with the
	// run's first write instead of a write of its own; channels that
	// acknowledge on receipt (WebSocket, Telegram) leave it false.
	AckOnAnswer bool
}

// ErrMessageReused is the cause of the KindConflict error of a message
// whose id (Inbound.MessageID) came before with another MessageDigest.
var ErrMessageReused = errors.New("message id already used for a different message")

// ResponseRef is a Responses API response a run answers: its id and the
// edge's own description of the request (kept as sent, returned by
// GET /v1/responses/{id}).
type ResponseRef struct {
	ID   string
	Echo []byte
}

// Point is a point in a session's history: just before the message whose
// key is Seq (the end of the history when Seq is the next key).
type Point struct {
	Session string
	Seq     uint64
}

// ErrOpenCalls is the cause of the KindInvalid error of a message sent to
// a session whose last run ended with client function calls still
// waiting for their results, or of results that do not match them.
var ErrOpenCalls = errors.New("function calls wait for their results")

// Transcript is a client's copy of a conversation.
type Transcript struct {
	// Messages: the conversation before the new message, as the client
	// holds it (system, user and assistant messages).
	Messages []Message
	// Key identifies Messages (the edge's digest of them): it finds the
	// stored conversation and the point in it where the client's copy
	// ends.
	Key string
}
