package beamclaw

import (
	"encoding/json"
	"time"
)

// Role is the author of a Message, as in OpenAI's chat format.
type Role string

// Roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Message is one entry of a conversation's history.
type Message struct {
	ID          string       `json:"id,omitempty"`
	Role        Role         `json:"role"`
	Content     string       `json:"content"`
	ToolCalls   []ToolCall   `json:"tool_calls,omitempty"`
	ToolCallID  string       `json:"tool_call_id,omitempty"` // set on RoleTool messages
	Name        string       `json:"name,omitempty"`         // tool name on RoleTool messages
	Attachments []Attachment `json:"attachments,omitempty"`
	Time        time.Time    `json:"ts,omitzero"`
}

// Attachment is binary content sent to the model with a user message, for
// example a photo. Data holds the raw bytes (JSON carries them as base64).
type Attachment struct {
	MIME string `json:"mime"`
	Data []byte `json:"data"`
	Name string `json:"name,omitempty"`
}

// ToolDef describes a tool to a model: a function name, a description and
// a JSON Schema of its arguments. Source says where it comes from
// ("builtin", "mcp:<server>", "sandbox", ...).
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Source      string          `json:"source,omitempty"`
}

// SourceClient is the ToolDef.Source of a client's own function (the
// OpenAI APIs' tools): the client runs it, not beamclaw.
const SourceClient = "client"

// ToolCall is a model's request to run a tool. Args is the raw JSON object
// of arguments as the model produced it.
type ToolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Source string          `json:"source,omitempty"` // "native", "xml", "fenced"
}

// ToolResult is what running a ToolCall produced, already scrubbed when it
// leaves the loop.
type ToolResult struct {
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error,omitempty"`
}

// Usage counts the tokens of one provider call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CachedTokens are the prompt tokens the provider read from its
	// prompt cache (billed at a fraction); part of PromptTokens.
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CacheWriteTokens are the prompt tokens the provider wrote to its
	// prompt cache on this call (Anthropic's cache_creation_input_tokens);
	// part of PromptTokens.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
		CachedTokens:     u.CachedTokens + v.CachedTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
	}
}

// LLMCall is one model call a run made, for the usage ledger.
type LLMCall struct {
	At       time.Time
	Provider string // the provider that answered
	Model    string
	Usage    Usage
	// Estimated: the provider reported no usage; the counts are the
	// request's and the answer's bytes / 4.
	Estimated bool
	// Hidden marks a call the user did not see (a memory flush or a
	// compaction summary).
	Hidden bool
}
