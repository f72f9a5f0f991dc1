package protocol

import (
	"encoding/json"
	"time"
)

// WSPath is the route of the WebSocket API.
const WSPath = "/ws"

// Client→server frame types of the WebSocket API (docs/websocket.md).
const (
	FrameHello    = "hello"    // first frame: picks the agent (and user)
	FrameMessage  = "message"  // a user message for the agent
	FrameApprove  = "approve"  // answers an approval_request
	FrameReset    = "reset"    // empties the session's history
	FrameHistory  = "history"  // asks for the session's history (answered by a history frame)
	FrameContext  = "context"  // asks for the context gauge (answered by a context frame)
	FramePing     = "ping"     // application-level liveness check (answered by pong)
	FrameAnswer   = "answer"   // answers an elicitation: elicitation_id, action, fields
	FrameSessions = "sessions" // lists the user's sessions with the agent (answered by a sessions frame)
	FrameResume   = "resume"   // continues one of them: session (answered by ready)
	// FrameLink links this connection's account to another of the
	// person's: without code it asks for a code to type on the other
	// account (answered by link_code); with code (shown on the other
	// account) it links (answered by linked).
	FrameLink = "link"
)

// Server→client frame types of the WebSocket API.
const (
	FrameReady           = "ready"            // answers hello: the session and its history
	FrameAck             = "ack"              // a message is durable and has a run
	FrameChunk           = "chunk"            // a piece of a streamed answer
	FrameToolStart       = "tool_start"       // a tool is about to run
	FrameToolResult      = "tool_result"      // a tool finished
	FrameApprovalRequest = "approval_request" // a tool call waits for a decision
	FrameElicitation     = "elicitation"      // a tool asks the user a question mid-call (answer with an answer frame)
	FrameWaiting         = "waiting"          // the message is queued behind a run that waits for the user: text says on what
	FrameFinal           = "final"            // the run's answer; ends the run
	FrameError           = "error"            // a run failed (with run_id) or a frame was refused
	FrameResetDone       = "reset_done"       // answers reset
	FramePong            = "pong"             // answers ping
	// FrameNotice is an answer nobody asked for on this connection: a
	// scheduled job's or a heartbeat's (Text, JobID, Agent). It belongs
	// to no run of the connection.
	FrameNotice = "notice"
	// FrameLinkCode answers a link frame without code: Text is the code,
	// Message says where to type it.
	FrameLinkCode = "link_code"
	// FrameLinked answers a link frame with a code: User is the person the
	// account now belongs to; send hello again to continue as them.
	FrameLinked = "linked"
)

// Decisions an approve frame may carry.
const (
	DecisionAllow  = "allow"
	DecisionAlways = "always"
	DecisionDeny   = "deny"
)

// Error codes of error frames.
const (
	CodeBadFrame    = "bad_frame"    // not JSON, unknown type, missing field
	CodeNoHello     = "no_hello"     // a frame other than hello before ready
	CodeBadProtocol = "bad_protocol" // hello asked for an unsupported version
	CodeNotFound    = "not_found"    // unknown agent, session or approval
	CodeInvalid     = "invalid"      // refused by the session layer as invalid
	CodeConflict    = "conflict"
	CodeForbidden   = "forbidden"
	CodeRateLimited = "rate_limited"
	CodeUnavailable = "unavailable"
	CodeTimeout     = "timeout"
	CodeTooLarge    = "too_large"
	CodeRunFailed   = "run_failed" // the run ended with an error
	CodeInternal    = "internal"
	CodeIDReused    = "id_reused" // a message id already used for a different message
)

// ClientFrame is every frame a client sends; Type says which fields
// matter.
type ClientFrame struct {
	Type string `json:"type"`

	// hello
	Agent    string `json:"agent,omitempty"`
	User     string `json:"user,omitempty"`
	Channel  string `json:"channel,omitempty"` // "tui" is honoured on the control socket only
	Protocol int    `json:"protocol,omitempty"`

	// message: ID is the client's message id; a repeated id is not run
	// again (the earlier ack is repeated).
	ID          string         `json:"id,omitempty"`
	Content     string         `json:"content,omitempty"`
	Attachments []WSAttachment `json:"attachments,omitempty"`

	// approve
	ApprovalID string `json:"approval_id,omitempty"`
	Decision   string `json:"decision,omitempty"`

	// answer: Action is accept, decline or cancel; Fields the values of
	// an accepted form (the schema's defaults fill those left out).
	ElicitationID string         `json:"elicitation_id,omitempty"`
	Action        string         `json:"action,omitempty"`
	Fields        map[string]any `json:"fields,omitempty"`

	// resume: the id of one of the user's sessions with the agent
	Session string `json:"session,omitempty"`

	// link: the code shown on the person's other account ("" asks for one)
	Code string `json:"code,omitempty"`
}

// ServerFrame is every frame the server sends; Type says which fields
// matter. "messages" is a list in history frames and a count in context
// frames (see MarshalJSON).
type ServerFrame struct {
	Type string `json:"type"`

	// ready
	SessionID string      `json:"session_id,omitempty"`
	Agent     string      `json:"agent,omitempty"`
	History   []WSMessage `json:"history,omitempty"`

	// ack (ID is the client's message id), and every run frame
	ID    string `json:"id,omitempty"`
	RunID string `json:"run_id,omitempty"`

	// chunk, final
	Text  string   `json:"text,omitempty"`
	Usage *WSUsage `json:"usage,omitempty"`

	// tool_start, tool_result
	Tool       string          `json:"tool,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	Result     string          `json:"result,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`

	// approval_request
	Approval *WSApproval `json:"approval,omitempty"`

	// elicitation
	Elicitation *WSElicitation `json:"elicitation,omitempty"`

	// error
	Message string `json:"message,omitempty"`
	Code    string `json:"code,omitempty"`

	// context
	UsedTokens   int `json:"used_tokens,omitempty"`
	Window       int `json:"window,omitempty"`
	MessageCount int `json:"-"`

	// history
	Messages []WSMessage `json:"-"`

	// sessions
	Sessions []SessionInfo `json:"sessions,omitempty"`

	// notice (with Agent and Text)
	JobID string `json:"job_id,omitempty"`

	// linked
	User string `json:"user,omitempty"`
}

// WSMessage is one entry of a session's history.
type WSMessage struct {
	Role       string       `json:"role"` // system, user, assistant, tool
	Content    string       `json:"content"`
	ToolCalls  []WSToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
	Name       string       `json:"name,omitempty"`
	Time       time.Time    `json:"ts,omitzero"`
}

// WSToolCall is a tool call recorded in history.
type WSToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// WSAttachment is a file sent with a message; Data is base64 in JSON.
type WSAttachment struct {
	MIME string `json:"mime"`
	Data []byte `json:"data"`
	Name string `json:"name,omitempty"`
}

// WSApproval asks whether a tool call may run; answer with an approve
// frame carrying ID.
type WSApproval struct {
	ID       string `json:"id"`
	ToolName string `json:"tool_name"`
	Args     string `json:"args"`
	Risk     string `json:"risk"`
	Prompt   string `json:"prompt"`
}

// WSElicitation is a question a tool asks the user in the middle of a
// call (an MCP server's elicitation): a message and a flat JSON Schema of
// the fields wanted (each may carry a default), or a URL to open. Answer
// it with an answer frame carrying ID, on the connection it came on.
type WSElicitation struct {
	ID      string          `json:"id"`
	Source  string          `json:"source"` // "mcp:<server>"
	Tool    string          `json:"tool,omitempty"`
	Message string          `json:"message"`
	Schema  json.RawMessage `json:"schema,omitempty"`
	URL     string          `json:"url,omitempty"`
}

// WSUsage counts the tokens a run used.
type WSUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type serverFrameJSON ServerFrame // no methods: plain encoding

// MarshalJSON writes the type-specific fields that plain tags cannot:
// ready always carries a history list, history a messages list, and
// context its counts (zeros included) with messages as a number.
func (f ServerFrame) MarshalJSON() ([]byte, error) {
	switch f.Type {
	case FrameReady:
		return json.Marshal(struct {
			serverFrameJSON
			History []WSMessage `json:"history"`
		}{serverFrameJSON(f), nonNil(f.History)})
	case FrameHistory:
		return json.Marshal(struct {
			serverFrameJSON
			Messages []WSMessage `json:"messages"`
		}{serverFrameJSON(f), nonNil(f.Messages)})
	case FrameContext:
		return json.Marshal(struct {
			serverFrameJSON
			UsedTokens int `json:"used_tokens"`
			Window     int `json:"window"`
			Messages   int `json:"messages"`
		}{serverFrameJSON(f), f.UsedTokens, f.Window, f.MessageCount})
	}
	return json.Marshal(serverFrameJSON(f))
}

// UnmarshalJSON reads "messages" as a list or a count, by frame type.
func (f *ServerFrame) UnmarshalJSON(b []byte) error {
	aux := struct {
		*serverFrameJSON
		Messages json.RawMessage `json:"messages"`
	}{serverFrameJSON: (*serverFrameJSON)(f)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	if len(aux.Messages) == 0 || string(aux.Messages) == "null" {
		return nil
	}
	if f.Type == FrameContext {
		return json.Unmarshal(aux.Messages, &f.MessageCount)
	}
	return json.Unmarshal(aux.Messages, &f.Messages)
}

func nonNil(m []WSMessage) []WSMessage {
	if m == nil {
		return []WSMessage{}
	}
	return m
}
