package protocol

import "time"

// A2ACard is an A2A agent card as `beamclaw a2a discover` shows it.
type A2ACard struct {
	Name              string         `json:"name"`
	Description       string         `json:"description"`
	Version           string         `json:"version"`
	Interfaces        []A2AInterface `json:"interfaces"`
	Streaming         bool           `json:"streaming"`
	PushNotifications bool           `json:"push_notifications"`
	ExtendedCard      bool           `json:"extended_card"`
	Skills            []A2ASkill     `json:"skills"`
	// Security names the schemes a caller must use ("bearer: HTTP Bearer").
	Security []string `json:"security,omitempty"`
}

// A2AInterface is one way to call an agent: a URL, a protocol binding
// (JSONRPC, HTTP+JSON, GRPC) and an A2A protocol version.
type A2AInterface struct {
	URL             string `json:"url"`
	Binding         string `json:"binding"`
	ProtocolVersion string `json:"protocol_version"`
}

// A2ASkill is one skill of an agent card.
type A2ASkill struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// A2ASendRequest is what `beamclaw a2a send` sends. Target is a URL (the
// agent card's base) or the name of a peer in a2a.peers; TokenEnv names
// the environment variable holding a bearer token (a peer's own token
// otherwise).
type A2ASendRequest struct {
	Target    string `json:"target"`
	Message   string `json:"message"`
	TokenEnv  string `json:"token_env,omitempty"`
	TaskID    string `json:"task_id,omitempty"`
	ContextID string `json:"context_id,omitempty"`
	Stream    bool   `json:"stream,omitempty"`
}

// A2AEvent is one streamed event of a send: a task snapshot, a status
// change (State, with its message in Text) or an artifact chunk (Text,
// Append when it extends the previous one).
type A2AEvent struct {
	Kind   string `json:"kind"` // "task", "status", "artifact", "message"
	State  string `json:"state,omitempty"`
	Text   string `json:"text,omitempty"`
	Append bool   `json:"append,omitempty"`
}

// A2AReply is how the task of a send ended, or paused for input.
type A2AReply struct {
	TaskID    string `json:"task_id"`
	ContextID string `json:"context_id"`
	State     string `json:"state"`
	Text      string `json:"text"`
}

// ControlA2ATasks answers GET with A2ATaskList: every caller's A2A tasks,
// newest first (query: agent, state, limit); ControlA2ATasks + "/{id}"
// answers GET with one A2ATask, its history and artifacts.
const ControlA2ATasks = "/control/a2a/tasks"

// A2ATask is a task of the A2A edge as the operator sees it.
type A2ATask struct {
	ID        string `json:"id"`
	ContextID string `json:"context_id"`
	Agent     string `json:"agent"`
	Caller    string `json:"caller"`            // who created it: the gateway token's holder or a peer of a2a.peers
	User      string `json:"user,omitempty"`    // the session user its turns run as
	Session   string `json:"session,omitempty"` // the session its turns run in
	// State is submitted, working, input-required, auth-required,
	// completed, failed, canceled or rejected.
	State   string    `json:"state"`
	Status  string    `json:"status,omitempty"` // the status message's text
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// History and Artifacts (their text) come with one task only.
	History   []A2ATaskMessage `json:"history,omitempty"`
	Artifacts []string         `json:"artifacts,omitempty"`
}

// A2ATaskMessage is one message of a task's history: role user or agent.
type A2ATaskMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// A2ATaskList is the answer of GET /control/a2a/tasks.
type A2ATaskList struct {
	Tasks []A2ATask `json:"tasks"`
}
