package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []wireMessage  `json:"messages,omitempty"` // never empty in a real request
	Tools               []wireTool     `json:"tools,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`

	// The client's sampling and output controls (beamclaw.Sampling).
	Temperature       *float64        `json:"temperature,omitempty"`
	TopP              *float64        `json:"top_p,omitempty"`
	Stop              []string        `json:"stop,omitempty"`
	Seed              *int64          `json:"seed,omitempty"`
	PresencePenalty   *float64        `json:"presence_penalty,omitempty"`
	FrequencyPenalty  *float64        `json:"frequency_penalty,omitempty"`
	ResponseFormat    json.RawMessage `json:"response_format,omitempty"`
	ReasoningEffort   string          `json:"reasoning_effort,omitempty"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls,omitempty"`
	ToolChoice        json.RawMessage `json:"tool_choice,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"` // string, []contentPart, or nil
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string      `json:"type"`
	Function wireToolDef `json:"function"`
}

type wireToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

type contentPart struct {
	Type       string      `json:"type"`
	Text       string      `json:"text,omitempty"`
	ImageURL   *imageURL   `json:"image_url,omitempty"`
	InputAudio *inputAudio `json:"input_audio,omitempty"`
	File       *filePart   `json:"file,omitempty"`
	// CacheControl marks a cache breakpoint (see cachemark.go).
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type inputAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

type filePart struct {
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data"`
}

// emptyParameters is the schema sent for a tool without one.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// encodeBody appends the JSON body of a chat request to dst[:0]: the
// members encoding/json writes, then the system prompt and the messages
// (from the conversation and message caches, with their cache
// breakpoints when the model takes them) and the tools array (from the
// tools cache).
func (c *Client) encodeBody(dst []byte, req beamclaw.ChatRequest, model string) ([]byte, error) {
	marked := c.cacheMarked(model)
	var tools []byte
	if len(req.Tools) > 0 {
		var err error
		if tools, err = c.t.enc.toolsJSON(req.Tools); err != nil {
			return nil, err
		}
	}
	system := systemText(req)
	size := len(tools) + len(system) + 512
	for _, m := range req.Messages {
		size += len(m.Content) + len(m.Content)/8 + 64 // escapes and the message's own members
	}
	buf := bytes.NewBuffer(slices.Grow(dst[:0], size))
	if err := json.NewEncoder(buf).Encode(encodeChatHead(req, model, c.maxCompletion)); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	out = append(out[:len(out)-2], `,"messages":[`...) // the head's closing brace and Encode's newline
	var err error
	switch {
	case system != "" && marked:
		out, err = c.t.enc.appendMarkedSystem(out, req)
	case system != "":
		out, err = c.t.enc.appendText(out, wireText{role: string(beamclaw.RoleSystem), content: system})
	}
	if err != nil {
		return nil, err
	}
	if system != "" && len(req.Messages) > 0 {
		out = append(out, ',')
	}
	if marked {
		out, err = c.t.enc.appendMarkedMessages(out, req.Conversation, req.Messages, req.TurnStart)
	} else {
		out, err = c.t.enc.appendMessages(out, req.Conversation, req.Messages)
	}
	if err != nil {
		return nil, err
	}
	out = append(out, ']')
	if tools != nil {
		out = append(append(out, `,"tools":`...), tools...)
	}
	return append(out, '}'), nil
}

// encodeChat builds the wire request. maxCompletion selects OpenAI's newer
// max_completion_tokens field over max_tokens.
func encodeChat(req beamclaw.ChatRequest, model string, maxCompletion bool) chatRequest {
	out := encodeChatHead(req, model, maxCompletion)
	out.Messages = wireMessages(req)
	out.Tools = wireTools(req.Tools)
	return out
}

// encodeChatHead is encodeChat without the messages and the tools (the
// client encodes those through its caches).
func encodeChatHead(req beamclaw.ChatRequest, model string, maxCompletion bool) chatRequest {
	out := chatRequest{
		Model:         model,
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
	}
	maxTokens := req.Sampling.MaxTokensWithin(req.MaxTokens)
	if maxCompletion {
		out.MaxCompletionTokens = maxTokens
	} else {
		out.MaxTokens = maxTokens
	}
	if s := req.Sampling; s != nil {
		out.Temperature, out.TopP, out.Stop, out.Seed = s.Temperature, s.TopP, s.Stop, s.Seed
		out.PresencePenalty, out.FrequencyPenalty = s.PresencePenalty, s.FrequencyPenalty
		out.ResponseFormat, out.ReasoningEffort = s.ResponseFormat, s.ReasoningEffort
		if len(req.Tools) > 0 {
			out.ParallelToolCalls, out.ToolChoice = s.ParallelToolCalls, s.ToolChoice // providers refuse them without tools
		}
	}
	return out
}

// wireMessages is the wire form of the system prompt and the messages.
func wireMessages(req beamclaw.ChatRequest) []wireMessage {
	out := make([]wireMessage, 0, len(req.Messages)+1)
	if system := systemText(req); system != "" {
		out = append(out, wireMessage{Role: string(beamclaw.RoleSystem), Content: system})
	}
	for _, m := range req.Messages {
		out = append(out, encodeMessage(m))
	}
	return out
}

// wireTools is the wire form of defs (nil for none).
func wireTools(defs []beamclaw.ToolDef) []wireTool {
	if len(defs) == 0 {
		return nil
	}
	out := make([]wireTool, 0, len(defs))
	for _, t := range defs {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = emptyParameters
		}
		out = append(out, wireTool{Type: "function", Function: wireToolDef{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	return out
}

func encodeMessage(m beamclaw.Message) wireMessage {
	w := wireMessage{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case beamclaw.RoleTool:
		w.ToolCallID = m.ToolCallID
	case beamclaw.RoleAssistant:
		for _, tc := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, wireToolCall{
				ID: tc.ID, Type: "function",
				Function: wireFunction{Name: tc.Name, Arguments: argumentsString(tc.Args)},
			})
		}
		if len(w.ToolCalls) > 0 && m.Content == "" {
			w.Content = nil
		}
	case beamclaw.RoleUser:
		if len(m.Attachments) > 0 {
			w.Content = contentParts(m)
		}
	}
	return w
}

// argumentsString is the arguments string OpenAI expects back: the JSON
// object as text; a JSON string (arguments that were not valid JSON) is
// unquoted to what the model produced.
func argumentsString(args json.RawMessage) string {
	if len(args) == 0 || string(args) == "null" {
		return "{}"
	}
	if args[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) == nil {
			return s
		}
	}
	return string(args)
}

// contentParts turns a user message with attachments into a text part
// followed by one part per attachment: images as image_url data URLs,
// wav/mp3 audio as input_audio, anything else as a file.
func contentParts(m beamclaw.Message) []contentPart {
	parts := make([]contentPart, 0, 1+len(m.Attachments))
	if m.Content != "" {
		parts = append(parts, contentPart{Type: "text", Text: m.Content})
	}
	for _, a := range m.Attachments {
		b64 := base64.StdEncoding.EncodeToString(a.Data)
		mime := strings.ToLower(a.MIME)
		switch {
		case strings.HasPrefix(mime, "image/"):
			parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + mime + ";base64," + b64}})
		case mime == "audio/wav" || mime == "audio/x-wav":
			parts = append(parts, contentPart{Type: "input_audio", InputAudio: &inputAudio{Data: b64, Format: "wav"}})
		case mime == "audio/mpeg" || mime == "audio/mp3":
			parts = append(parts, contentPart{Type: "input_audio", InputAudio: &inputAudio{Data: b64, Format: "mp3"}})
		default:
			if mime == "" {
				mime = "application/octet-stream"
			}
			parts = append(parts, contentPart{Type: "file", File: &filePart{Filename: a.Name, FileData: "data:" + mime + ";base64," + b64}})
		}
	}
	return parts
}
