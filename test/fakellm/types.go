package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ToolCall is a native tool call a Reply makes. Arguments is the JSON text
// of the arguments exactly as the model would produce it (it need not be
// valid JSON, which lets tests exercise bad-argument paths).
type ToolCall struct {
	ID        string `json:"id,omitempty"` // "call_<n>" when empty
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is the token accounting a reply reports. When a Reply has none,
// the server estimates one (about four bytes per token).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// Details is prompt_tokens_details (OpenAI's prompt caching); nil
	// leaves it out.
	Details *UsageDetails `json:"prompt_tokens_details,omitempty"`
}

// UsageDetails is usage.prompt_tokens_details: the prompt tokens read
// from the provider's cache and (as OpenRouter reports them) written to
// it. The Anthropic wire reports them as cache_read_input_tokens and
// cache_creation_input_tokens, and input_tokens as the rest.
type UsageDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// Reply is one scripted answer. The zero Reply answers an empty text.
//
// For chat completions and Anthropic's messages: Text (or Chunks, which
// wins when set) is the assistant's content, streamed one chunk per SSE
// event; ToolCalls are native tool calls streamed after the text, their
// arguments split over several deltas; Reasoning is streamed before the
// text (OpenAI: reasoning_content; Anthropic: a thinking block, when the
// request enabled thinking). For transcriptions Text is the transcript.
// Every endpoint honours Status, RetryAfter, Error, Drop and Hold.
type Reply struct {
	Text         string     `json:"text,omitempty"`
	Chunks       []string   `json:"chunks,omitempty"`
	Reasoning    string     `json:"reasoning,omitempty"` // sent as reasoning_content deltas before the text
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"` // default "stop", or "tool_calls"
	Usage        *Usage     `json:"usage,omitempty"`
	// NoUsage leaves usage out of a chat completion (streamed or not), as
	// a provider that reports none does; Anthropic's wire always has it.
	NoUsage bool `json:"no_usage,omitempty"`

	Status     int           `json:"status,omitempty"` // non-200: answer an OpenAI error body with this status
	Error      string        `json:"error,omitempty"`  // error.message for Status (a default otherwise)
	RetryAfter time.Duration `json:"-"`                // Retry-After header (whole seconds) with Status
	Drop       bool          `json:"drop,omitempty"`   // close the connection without any response
	// StreamError, for a streamed answer, ends the stream with an error
	// after its deltas instead of finishing: Anthropic's error event of
	// this status's type (529 overloaded_error), or an OpenAI chunk with
	// error {message: Error, code: StreamError}.
	StreamError int `json:"stream_error,omitempty"`

	ChunkDelay time.Duration `json:"-"`                     // pause before each streamed chunk
	BreakAfter int           `json:"break_after,omitempty"` // >0: cut the connection after this many chunks
	// Hold, when set, blocks the reply until the channel is closed (or the
	// client goes away): before the first chunk, or after HoldAfter chunks.
	Hold      chan struct{} `json:"-"`
	HoldAfter int           `json:"hold_after,omitempty"`
}

// replyJSON is Reply's JSON shape: durations as Go duration strings
// ("250ms", "2s") so that script files stay readable.
type replyJSON struct {
	replyAlias
	RetryAfter string `json:"retry_after,omitempty"`
	ChunkDelay string `json:"chunk_delay,omitempty"`
}

type replyAlias Reply

// MarshalJSON encodes durations as Go duration strings.
func (r Reply) MarshalJSON() ([]byte, error) {
	out := replyJSON{replyAlias: replyAlias(r)}
	if r.RetryAfter > 0 {
		out.RetryAfter = r.RetryAfter.String()
	}
	if r.ChunkDelay > 0 {
		out.ChunkDelay = r.ChunkDelay.String()
	}
	return json.Marshal(out)
}

// UnmarshalJSON decodes a Reply, reading retry_after and chunk_delay as Go
// duration strings ("1s") or as numbers of seconds.
func (r *Reply) UnmarshalJSON(b []byte) error {
	var in struct {
		replyAlias
		RetryAfter json.RawMessage `json:"retry_after,omitempty"`
		ChunkDelay json.RawMessage `json:"chunk_delay,omitempty"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Reply(in.replyAlias)
	var err error
	if r.RetryAfter, err = parseDuration(in.RetryAfter); err != nil {
		return fmt.Errorf("retry_after: %w", err)
	}
	if r.ChunkDelay, err = parseDuration(in.ChunkDelay); err != nil {
		return fmt.Errorf("chunk_delay: %w", err)
	}
	return nil
}

func parseDuration(raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return time.ParseDuration(s)
	}
	var secs float64
	if err := json.Unmarshal(raw, &secs); err != nil {
		return 0, fmt.Errorf("want a duration string or seconds, got %s", raw)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// Request is one request the server received, decoded for assertions.
type Request struct {
	Path         string          `json:"path"`
	Model        string          `json:"model,omitempty"`
	Messages     []Message       `json:"messages,omitempty"`
	Tools        []Tool          `json:"tools,omitempty"`
	Stream       bool            `json:"stream,omitempty"`
	IncludeUsage bool            `json:"include_usage,omitempty"` // stream_options.include_usage
	MaxTokens    int             `json:"max_tokens,omitempty"`    // max_tokens or max_completion_tokens
	Thinking     int             `json:"thinking,omitempty"`      // Anthropic: thinking.budget_tokens when thinking is enabled
	Input        []string        `json:"input,omitempty"`         // embeddings
	Dimensions   int             `json:"dimensions,omitempty"`    // embeddings
	File         string          `json:"file,omitempty"`          // transcriptions: uploaded file name
	FileSize     int             `json:"file_size,omitempty"`     // transcriptions: uploaded bytes
	Header       http.Header     `json:"header,omitempty"`
	Body         json.RawMessage `json:"body,omitempty"` // the raw JSON body (chat and embeddings)
}

// Message is one chat message of a Request. Content is the plain text (for
// content-part arrays, the text parts joined); Parts keeps the parts.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Parts      []Part     `json:"parts,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// Part is one element of an array-valued message content.
type Part struct {
	Type     string `json:"type"`                // "text", "image_url", "input_audio", "file"
	Text     string `json:"text,omitempty"`      // type text
	ImageURL string `json:"image_url,omitempty"` // type image_url: the url (often a data: URL)
}

// Tool is one function tool of a Request.
type Tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// System returns the contents of the system messages, one per line.
func (r Request) System() string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "system" {
			b.WriteString(m.Content + "\n")
		}
	}
	return b.String()
}

// LastUser returns the content of the last user message, or "".
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}
