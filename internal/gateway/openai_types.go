package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// chatRequest is the body of POST /v1/chat/completions. Fields it does
// not name (store, service_tier, prompt_cache_key, ...) are accepted and
// ignored; docs/openai-api.md lists every field.
type chatRequest struct {
	samplingFields
	Model         string            `json:"model"`
	Messages      []chatMessage     `json:"messages"`
	Stream        bool              `json:"stream"`
	StreamOptions *streamOptions    `json:"stream_options"`
	User          string            `json:"user"`
	N             *int              `json:"n"`
	Tools         []functionTool    `json:"tools"`
	ToolChoice    json.RawMessage   `json:"tool_choice"`
	Functions     []json.RawMessage `json:"functions"`
	Metadata      map[string]string `json:"metadata"`

	sampling *beamclaw.Sampling // the checked controls
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message of a request.
type chatMessage struct {
	Role       string      `json:"role"`
	Content    chatContent `json:"content"`
	Name       string      `json:"name"`
	ToolCalls  []toolCall  `json:"tool_calls"`
	ToolCallID string      `json:"tool_call_id"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// chatContent is a message's content: a string, an array of parts, or
// null.
type chatContent struct {
	Text  string
	Parts []contentPart
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text"`
	Refusal  string    `json:"refusal"`
	ImageURL *imageURL `json:"image_url"`
}

type imageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail"`
}

var errContentShape = errors.New("content must be a string, an array of content parts or null")

// UnmarshalJSON accepts the three shapes OpenAI allows.
func (c *chatContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		return nil
	case b[0] == '"':
		return json.Unmarshal(b, &c.Text)
	case b[0] == '[':
		return json.Unmarshal(b, &c.Parts)
	}
	return errContentShape
}

// decodeChat parses and checks a request body.
func decodeChat(body []byte) (*chatRequest, error) {
	var req chatRequest
	err := json.Unmarshal(body, &req)
	if err != nil {
		return nil, jsonError(err)
	}
	switch {
	case req.Model == "":
		return nil, badRequest("model is required: use \"default\" or \"beamclaw/<agent>\"", "model")
	case len(req.Messages) == 0:
		return nil, badRequest("messages must hold at least one message", "messages")
	case len(req.Functions) > 0:
		return nil, badRequest("'functions' is deprecated and not supported: declare them as 'tools'", "functions")
	case req.N != nil && *req.N != 1:
		return nil, badRequest("n must be 1: one choice per request is supported", "n")
	}
	if req.sampling, err = req.samplingFields.sampling(req.Stream, req.StreamOptions); err != nil {
		return nil, err
	}
	return &req, nil
}

// jsonError says where a body is malformed.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var re *requestError
	switch {
	case errors.As(err, &re):
		return re
	case errors.As(err, &syn):
		return badRequest(fmt.Sprintf("malformed JSON at offset %d: %s", syn.Offset, syn.Error()), "")
	case errors.As(err, &typ):
		field := strings.TrimPrefix(typ.Field, "samplingFields.") // the embedded struct's Go name
		if field == "" {
			field = "body"
		}
		return badRequest(fmt.Sprintf("Invalid type for '%s' (at offset %d): expected %s, but got %s instead.", field, typ.Offset, jsonKind(typ.Type.String()), article(typ.Value)), field)
	case errors.Is(err, errContentShape):
		return badRequest("invalid JSON: message "+errContentShape.Error(), "messages")
	}
	return badRequest("malformed JSON: "+err.Error(), "")
}

// jsonKind names a Go type as the JSON a client should send.
func jsonKind(goType string) string {
	switch {
	case strings.Contains(goType, "float"):
		return "a number"
	case strings.Contains(goType, "int"):
		return "an integer"
	case strings.Contains(goType, "bool"):
		return "a boolean"
	case strings.Contains(goType, "string") && !strings.Contains(goType, "map") && !strings.HasPrefix(strings.TrimLeft(goType, "*"), "[]"):
		return "a string"
	case strings.HasPrefix(strings.TrimLeft(goType, "*"), "[]"):
		return "an array"
	}
	return "an object"
}

// article puts "a"/"an" before a JSON value kind ("string", "number").
func article(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// Response types, OpenAI's wire format.

type chatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   chatUsage    `json:"usage"`
}

type chatChoice struct {
	Index        int           `json:"index"`
	Message      answerMessage `json:"message"`
	FinishReason string        `json:"finish_reason"`
}

type answerMessage struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"` // null beside tool calls without text
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// PromptDetails carries the prompt tokens the provider read from its
	// cache, as OpenAI reports them.
	PromptDetails *promptDetails `json:"prompt_tokens_details,omitempty"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type chatChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *chatUsage    `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role      string      `json:"role,omitempty"`
	Content   *string     `json:"content,omitempty"`
	ToolCalls []chunkCall `json:"tool_calls,omitempty"`
}

// chunkCall is a tool call in a streamed delta: whole, in one chunk.
type chunkCall struct {
	Index int `json:"index"`
	toolCall
}

type modelList struct {
	Object string       `json:"object"`
	Data   []modelEntry `json:"data"`
}

type modelEntry struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}
