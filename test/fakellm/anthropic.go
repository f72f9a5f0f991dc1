package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// PathMessages is Anthropic's Messages API (POST, under the server's
// root: Anthropic's base URL has no /v1).
const PathMessages = "/v1/messages"

// minThinkingBudget is the smallest thinking.budget_tokens Anthropic
// takes.
const minThinkingBudget = 1024

// anthropicRequest is the subset of a Messages API body the fake reads.
type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    json.RawMessage    `json:"system"` // a string or text blocks
	Messages  []anthropicMessage `json:"messages"`
	Tools     []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream   bool `json:"stream"`
	Thinking *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or blocks
}

// anthropicBlock is one content block of a request.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or blocks
	IsError   bool            `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// handleMessages answers POST /v1/messages in Anthropic's wire format,
// from the same scripts and Responder as chat completions: the request is
// read into the fake's own view (Request) first.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	req, err := decodeAnthropic(body)
	req.Path, req.Header = PathMessages, r.Header.Clone()
	if err != nil {
		s.next(req)
		writeAnthropicError(w, http.StatusBadRequest, err.Error())
		return
	}
	ans, holdLater, ok := s.answerFor(w, r, req)
	if !ok {
		return
	}
	ans.thinking = req.Thinking > 0
	if req.Stream {
		s.streamAnthropic(w, r, ans, holdLater)
		return
	}
	writeJSON(w, http.StatusOK, ans.anthropicMessage())
}

// decodeAnthropic turns a Messages API body into a Request: the system
// blocks become a system message first; a user message's tool_result
// blocks become tool messages (before its text), so Rules and the
// recorded history read alike for both wire formats. It refuses what
// Anthropic refuses: no max_tokens, roles that do not alternate, a
// tool_result without its tool_use just before, a thinking budget under
// 1024 or not under max_tokens.
func decodeAnthropic(body []byte) (Request, error) {
	var w anthropicRequest
	req := Request{Body: append(json.RawMessage(nil), body...)}
	if err := json.Unmarshal(body, &w); err != nil {
		return req, fmt.Errorf("decode request body: %w", err)
	}
	req.Model, req.Stream, req.MaxTokens = w.Model, w.Stream, w.MaxTokens
	if w.MaxTokens <= 0 {
		return req, fmt.Errorf("max_tokens: Field required")
	}
	if t := w.Thinking; t != nil && t.Type == "enabled" {
		if t.BudgetTokens < minThinkingBudget || t.BudgetTokens >= w.MaxTokens {
			return req, fmt.Errorf("thinking.budget_tokens: must be at least %d and less than max_tokens", minThinkingBudget)
		}
		req.Thinking = t.BudgetTokens
	}
	system, err := blocksText(w.System)
	if err != nil {
		return req, fmt.Errorf("system: %w", err)
	}
	if system != "" {
		req.Messages = append(req.Messages, Message{Role: "system", Content: system})
	}
	var lastCalls []ToolCall
	for i, m := range w.Messages {
		if want := [2]string{"user", "assistant"}[i%2]; m.Role != want {
			return req, fmt.Errorf("messages.%d: roles must alternate between \"user\" and \"assistant\", starting with \"user\"", i)
		}
		msgs, err := decodeAnthropicMessage(m, lastCalls)
		if err != nil {
			return req, fmt.Errorf("messages.%d: %w", i, err)
		}
		req.Messages = append(req.Messages, msgs...)
		lastCalls = msgs[len(msgs)-1].ToolCalls
	}
	if err := thinkingBeforeTools(w, req.Thinking > 0); err != nil {
		return req, err
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, Tool{Type: "custom", Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	return req, nil
}

// decodeAnthropicMessage is one message as the fake's messages; calls
// are the tool_use blocks of the assistant message before it.
func decodeAnthropicMessage(m anthropicMessage, calls []ToolCall) ([]Message, error) {
	if len(m.Content) > 0 && m.Content[0] == '"' {
		var text string
		err := json.Unmarshal(m.Content, &text)
		return []Message{{Role: m.Role, Content: text}}, err
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	var out []Message
	msg := Message{Role: m.Role}
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
			msg.Parts = append(msg.Parts, Part{Type: "text", Text: b.Text})
		case "image":
			if b.Source == nil || b.Source.Type != "base64" {
				return nil, fmt.Errorf("image: want a base64 source")
			}
			msg.Parts = append(msg.Parts, Part{Type: "image", ImageURL: "data:" + b.Source.MediaType + ";base64," + b.Source.Data})
		case "tool_use":
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		case "tool_result":
			if !hasCall(calls, b.ToolUseID) {
				return nil, fmt.Errorf("unexpected `tool_use_id` found in `tool_result` blocks: %s", b.ToolUseID)
			}
			text, err := blocksText(b.Content)
			if err != nil {
				return nil, fmt.Errorf("tool_result: %w", err)
			}
			out = append(out, Message{Role: "tool", ToolCallID: b.ToolUseID, Content: text})
		case "thinking", "redacted_thinking":
		default:
			return nil, fmt.Errorf("unknown content block type %q", b.Type)
		}
	}
	msg.Content = strings.Join(texts, "\n")
	if msg.Content != "" || len(msg.ToolCalls) > 0 || len(msg.Parts) > 0 || len(out) == 0 {
		out = append(out, msg)
	}
	return out, nil
}

// thinkingBeforeTools refuses, as Anthropic does with thinking on, a
// last assistant message whose tool calls the last user message answers
// when it does not start with its thinking block.
func thinkingBeforeTools(w anthropicRequest, thinking bool) error {
	n := len(w.Messages)
	if !thinking || n < 2 || !bytes.Contains(w.Messages[n-1].Content, []byte(`"tool_result"`)) {
		return nil
	}
	var first []struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(w.Messages[n-2].Content, &first)
	if len(first) == 0 || (first[0].Type != "thinking" && first[0].Type != "redacted_thinking") {
		return fmt.Errorf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found another block. "+
			"When `thinking` is enabled, a final `assistant` message must start with a thinking block", n-2)
	}
	return nil
}

func hasCall(calls []ToolCall, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// blocksText is the text of a string or of text blocks, joined.
func blocksText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", err
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// anthropicErrorType is Anthropic's error.type for an HTTP status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case StatusOverloaded:
		return "overloaded_error"
	}
	return "api_error"
}

// StatusOverloaded is Anthropic's 529: the API is overloaded.
const StatusOverloaded = 529

// anthropicError is Anthropic's error body (and an error event's data).
func anthropicError(status int, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": anthropicErrorType(status), "message": msg}}
}

func writeAnthropicError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, anthropicError(status, msg))
}
