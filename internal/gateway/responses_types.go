package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// responseRequest is the body of POST /v1/responses. Fields it does not
// name (service_tier, prompt_cache_key, safety_identifier, ...) are
// accepted and ignored; docs/responses.md lists every field.
type responseRequest struct {
	Model              string            `json:"model"`
	Input              json.RawMessage   `json:"input"`
	Instructions       *string           `json:"instructions"`
	PreviousResponseID string            `json:"previous_response_id"`
	Store              *bool             `json:"store"`
	Stream             bool              `json:"stream"`
	Metadata           map[string]string `json:"metadata"`
	User               string            `json:"user"`
	Temperature        *float64          `json:"temperature"`
	TopP               *float64          `json:"top_p"`
	MaxOutputTokens    *int              `json:"max_output_tokens"`
	ParallelToolCalls  *bool             `json:"parallel_tool_calls"`
	Tools              []functionTool    `json:"tools"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	Text               *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
	Reasoning *struct {
		Effort *string `json:"effort"`
	} `json:"reasoning"`
	Background bool            `json:"background"`
	Truncation string          `json:"truncation"`
	Include    []string        `json:"include"`
	Prompt     json.RawMessage `json:"prompt"`

	items    []inputItem // Input, checked
	sampling *beamclaw.Sampling
	store    bool
}

// inputItem is one item of a request's input, normalized.
type inputItem struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"` // message, function_call, function_call_output
	Role    string          `json:"role,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
	Status  string          `json:"status,omitempty"`
	CallID  string          `json:"call_id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Args    string          `json:"arguments,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`

	msg    beamclaw.Message  // as history
	result *beamclaw.Message // an mcp_call's result, after msg
}

// decodeResponseRequest parses and checks a body.
func decodeResponseRequest(body []byte) (*responseRequest, error) {
	var req responseRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, jsonError(err)
	}
	switch {
	case req.Model == "":
		return nil, badRequest("model is required: use \"default\" or \"beamclaw/<agent>\"", "model")
	case req.Background:
		return nil, badRequest("background responses are not supported: stream the response, or keep the request open", "background")
	case len(req.Prompt) > 0 && string(req.Prompt) != "null":
		return nil, badRequest("prompt templates are not supported: send instructions and input", "prompt")
	case req.Truncation != "" && req.Truncation != "disabled" && req.Truncation != "auto":
		return nil, badRequest(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'auto' and 'disabled'.", req.Truncation), "truncation")
	}
	req.store = req.Store == nil || *req.Store
	var err error
	if req.items, err = inputItems(req.Input); err != nil {
		return nil, err
	}
	if len(req.items) == 0 {
		return nil, badRequest("input is required: a string, or an array of input items", "input")
	}
	f := samplingFields{Temperature: req.Temperature, TopP: req.TopP, MaxCompletionTokens: req.MaxOutputTokens,
		ParallelToolCalls: req.ParallelToolCalls}
	if req.Reasoning != nil {
		f.ReasoningEffort = req.Reasoning.Effort
	}
	if req.Text != nil && len(req.Text.Format) > 0 {
		if f.ResponseFormat, err = textFormat(req.Text.Format); err != nil {
			return nil, err
		}
	}
	if req.sampling, err = f.sampling(false, nil); err != nil {
		if re := (*requestError)(nil); errors.As(err, &re) && re.param == "max_completion_tokens" {
			re.param, re.msg = "max_output_tokens", "Invalid 'max_output_tokens': value below minimum. Expected a value >= 1."
		}
		return nil, err
	}
	return &req, nil
}

// textFormat turns the Responses API's text.format into the chat
// completions response_format the provider is sent.
func textFormat(raw json.RawMessage) (*responseFormat, error) {
	var f struct {
		Type   string          `json:"type"`
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict *bool           `json:"strict"`
		Desc   string          `json:"description"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, badRequest("Invalid 'text.format': expected an object with a 'type'.", "text.format")
	}
	var wire any = map[string]string{"type": f.Type}
	if f.Type == "json_schema" {
		wire = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": f.Name, "schema": f.Schema,
			"strict": f.Strict, "description": f.Desc}}
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, err
	}
	var rf responseFormat
	if err := rf.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return &rf, nil
}

// inputItems parses input: a string (one user message) or an array of
// items: messages (roles system, developer, user, assistant), function
// calls and function call outputs.
func inputItems(raw json.RawMessage) ([]inputItem, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, badRequest("Invalid 'input': "+err.Error(), "input")
		}
		it := inputItem{ID: "msg_in_0", Type: "message", Role: "user", Content: textParts("user", s),
			msg: beamclaw.Message{Role: beamclaw.RoleUser, Content: s}}
		return []inputItem{it}, nil
	}
	var items []inputItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, badRequest("Invalid 'input': expected a string or an array of input items.", "input")
	}
	for i := range items {
		if err := items[i].check(i); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// check validates item i and converts it to a history message.
func (it *inputItem) check(i int) error {
	param := fmt.Sprintf("input[%d]", i)
	if it.Type == "" && it.Role != "" {
		it.Type = "message"
	}
	if it.ID == "" {
		it.ID = fmt.Sprintf("item_in_%d", i)
	}
	switch it.Type {
	case "message":
		return it.checkMessage(i, param)
	case "function_call":
		if it.CallID == "" || it.Name == "" {
			return badRequest(param+": a function_call needs a call_id and a name", param)
		}
		args := json.RawMessage(it.Args)
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if !json.Valid(args) {
			return badRequest(param+".arguments is not valid JSON", param+".arguments")
		}
		it.msg = beamclaw.Message{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: it.CallID, Name: it.Name, Args: args, Source: "native"}}}
	case "mcp_call": // one of the agent's own tools, as a response reported it, sent back
		if it.Name == "" {
			return badRequest(param+": an mcp_call needs a name", param)
		}
		args := json.RawMessage(it.Args)
		if len(args) == 0 || !json.Valid(args) {
			args = json.RawMessage("{}")
		}
		out, err := outputText(it.Output, param)
		if err != nil {
			return err
		}
		id := strings.TrimPrefix(it.ID, "mcp_")
		it.msg = beamclaw.Message{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: id, Name: it.Name, Args: args, Source: "native"}}}
		it.result = &beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: id, Name: it.Name, Content: out}
	case "function_call_output":
		if it.CallID == "" {
			return badRequest(param+": a function_call_output needs the call_id of its call", param+".call_id")
		}
		text, err := outputText(it.Output, param)
		if err != nil {
			return err
		}
		it.msg = beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: it.CallID, Content: text}
	default:
		return badRequest(fmt.Sprintf("%s: item type %q is not supported (message, function_call, function_call_output and mcp_call are)", param, it.Type), param+".type")
	}
	return nil
}

func (it *inputItem) checkMessage(i int, param string) error {
	role, ok := roleOf(it.Role)
	if !ok || role == beamclaw.RoleTool {
		return badRequest(fmt.Sprintf("%s.role %q is not one of system, developer, user, assistant", param, it.Role), param+".role")
	}
	var c chatContent
	if len(it.Content) > 0 {
		if b := bytes.TrimSpace(it.Content); b[0] == '[' {
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				Refusal  string `json:"refusal"`
				ImageURL string `json:"image_url"`
				Detail   string `json:"detail"`
			}
			if err := json.Unmarshal(b, &parts); err != nil {
				return badRequest(param+".content: expected a string or an array of content parts", param+".content")
			}
			for _, p := range parts {
				cp := contentPart{Type: p.Type, Text: p.Text, Refusal: p.Refusal}
				switch p.Type {
				case "input_text", "output_text":
					cp.Type = "text"
				case "input_image":
					cp.Type, cp.ImageURL = "image_url", &imageURL{URL: p.ImageURL, Detail: p.Detail}
				case "refusal":
				default:
					cp.Type = p.Type // refused below, with its name
				}
				c.Parts = append(c.Parts, cp)
			}
		} else if err := c.UnmarshalJSON(b); err != nil {
			return badRequest(param+".content: expected a string or an array of content parts", param+".content")
		} else {
			it.Content = textParts(it.Role, c.Text) // listed as the API lists input: parts
		}
	}
	text, atts, err := contentOf(i, c)
	var re *requestError
	if errors.As(err, &re) { // contentOf names chat completions' messages
		re.msg, re.param = strings.Replace(re.msg, "messages[", "input[", 1), strings.Replace(re.param, "messages[", "input[", 1)
	}
	if err != nil {
		return err
	}
	it.msg = beamclaw.Message{Role: role, Content: text, Attachments: atts}
	return nil
}

// textParts is text as a message's content parts.
func textParts(role, text string) json.RawMessage {
	typ := "input_text"
	if role == "assistant" {
		typ = "output_text"
	}
	b, _ := json.Marshal([]map[string]string{{"type": typ, "text": text}})
	return b
}

// outputText is a function_call_output's output: a string, or text parts.
func outputText(raw json.RawMessage, param string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badRequest(param+".output: expected a string or an array of text parts", param+".output")
	}
	var b bytes.Buffer
	for _, p := range parts {
		if p.Type != "input_text" && p.Type != "output_text" && p.Type != "text" {
			return "", badRequest(fmt.Sprintf("%s.output: part type %q is not supported (text is)", param, p.Type), param+".output")
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}
