package fakellm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// wireRequest is the subset of OpenAI's chat and embeddings request bodies
// the fake understands.
type wireRequest struct {
	Model         string        `json:"model"`
	Messages      []wireMessage `json:"messages"`
	Tools         []wireTool    `json:"tools"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Input               json.RawMessage `json:"input"`
	Dimensions          int             `json:"dimensions"`
	EncodingFormat      string          `json:"encoding_format"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []wireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
}

type wireToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// decodeChat turns a chat completions body into a Request.
func decodeChat(path string, body []byte) (Request, wireRequest, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, w, fmt.Errorf("decode request body: %w", err)
	}
	req := Request{
		Path:         path,
		Model:        w.Model,
		Stream:       w.Stream,
		IncludeUsage: w.StreamOptions != nil && w.StreamOptions.IncludeUsage,
		MaxTokens:    max(w.MaxTokens, w.MaxCompletionTokens),
		Body:         append(json.RawMessage(nil), body...),
	}
	for i, m := range w.Messages {
		msg, err := decodeMessage(m)
		if err != nil {
			return Request{}, w, fmt.Errorf("messages[%d]: %w", i, err)
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, Tool{
			Type: t.Type, Name: t.Function.Name,
			Description: t.Function.Description, Parameters: t.Function.Parameters,
		})
	}
	return req, w, nil
}

func decodeMessage(m wireMessage) (Message, error) {
	msg := Message{Role: m.Role, ToolCallID: m.ToolCallID, Name: m.Name}
	switch {
	case len(m.Content) == 0 || string(m.Content) == "null":
	case m.Content[0] == '"':
		if err := json.Unmarshal(m.Content, &msg.Content); err != nil {
			return msg, fmt.Errorf("content: %w", err)
		}
	default:
		var parts []wirePart
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return msg, fmt.Errorf("content parts: %w", err)
		}
		var texts []string
		for _, p := range parts {
			part := Part{Type: p.Type, Text: p.Text}
			if p.ImageURL != nil {
				part.ImageURL = p.ImageURL.URL
			}
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
			msg.Parts = append(msg.Parts, part)
		}
		msg.Content = strings.Join(texts, "\n")
	}
	for _, tc := range m.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{
			ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments,
		})
	}
	return msg, nil
}

// decodeInput reads an embeddings input: a string or a list of strings.
func decodeInput(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("input is required")
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("input must be a string or a list of strings: %w", err)
	}
	return many, nil
}
