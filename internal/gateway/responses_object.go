package gateway

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/session"
)

// responseObject is a Response in the Responses API's wire format.
type responseObject struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	CreatedAt          int64             `json:"created_at"`
	Status             string            `json:"status"`
	Error              *responseError    `json:"error"`
	IncompleteDetails  *incomplete       `json:"incomplete_details"`
	Instructions       *string           `json:"instructions"`
	MaxOutputTokens    *int              `json:"max_output_tokens"`
	Model              string            `json:"model"`
	Output             []outputItem      `json:"output"`
	ParallelToolCalls  bool              `json:"parallel_tool_calls"`
	PreviousResponseID *string           `json:"previous_response_id"`
	Reasoning          reasoning         `json:"reasoning"`
	Store              bool              `json:"store"`
	Temperature        *float64          `json:"temperature"`
	Text               json.RawMessage   `json:"text"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	Tools              json.RawMessage   `json:"tools"`
	TopP               *float64          `json:"top_p"`
	Truncation         string            `json:"truncation"`
	Usage              *responseUsage    `json:"usage"`
	User               *string           `json:"user"`
	Metadata           map[string]string `json:"metadata"`
}

type responseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type incomplete struct {
	Reason string `json:"reason"`
}

type reasoning struct {
	Effort *string `json:"effort"`
}

type responseUsage struct {
	InputTokens         int            `json:"input_tokens"`
	InputTokensDetails  map[string]int `json:"input_tokens_details"`
	OutputTokens        int            `json:"output_tokens"`
	OutputTokensDetails map[string]int `json:"output_tokens_details"`
	TotalTokens         int            `json:"total_tokens"`
}

// outputItem is one item of a response's output: a message, a call of
// the client's function, or a call of one of the agent's own tools, which
// ran inside beamclaw (reported as an mcp_call of server "beamclaw").
type outputItem struct {
	ID          string       `json:"id"`
	Type        string       `json:"type"`
	Status      string       `json:"status,omitempty"`
	Role        string       `json:"role,omitempty"`
	Content     []outputPart `json:"content,omitempty"`
	CallID      string       `json:"call_id,omitempty"`
	Name        string       `json:"name,omitempty"`
	Arguments   *string      `json:"arguments,omitempty"`
	ServerLabel string       `json:"server_label,omitempty"`
	Output      *string      `json:"output,omitempty"`
}

type outputPart struct {
	Type        string     `json:"type"`
	Text        string     `json:"text"`
	Annotations []struct{} `json:"annotations"`
	Logprobs    []struct{} `json:"logprobs"`
}

// serverLabel names beamclaw's own tools in mcp_call items.
const serverLabel = "beamclaw"

// responseEcho is what a response keeps of its request (stored as
// session.Response.Echo): what GET answers besides the output.
type responseEcho struct {
	Model              string            `json:"model"`
	Instructions       *string           `json:"instructions,omitempty"`
	MaxOutputTokens    *int              `json:"max_output_tokens,omitempty"`
	ParallelToolCalls  *bool             `json:"parallel_tool_calls,omitempty"`
	PreviousResponseID string            `json:"previous_response_id,omitempty"`
	Effort             *string           `json:"effort,omitempty"`
	Temperature        *float64          `json:"temperature,omitempty"`
	TopP               *float64          `json:"top_p,omitempty"`
	Text               json.RawMessage   `json:"text,omitempty"`
	ToolChoice         json.RawMessage   `json:"tool_choice,omitempty"`
	Tools              []functionTool    `json:"tools,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	User               string            `json:"user,omitempty"`
	Store              bool              `json:"store"`
	Input              []inputItem       `json:"input"`
}

func echoOf(req *responseRequest) responseEcho {
	e := responseEcho{Model: req.Model, Instructions: req.Instructions, MaxOutputTokens: req.MaxOutputTokens,
		ParallelToolCalls: req.ParallelToolCalls, PreviousResponseID: req.PreviousResponseID, Temperature: req.Temperature,
		TopP: req.TopP, ToolChoice: req.ToolChoice, Tools: req.Tools, Metadata: req.Metadata, User: req.User,
		Store: req.store, Input: req.items}
	if req.Reasoning != nil {
		e.Effort = req.Reasoning.Effort
	}
	if req.Text != nil {
		e.Text, _ = json.Marshal(req.Text)
	}
	return e
}

// object is the response id with status and output, as the wire shows it.
func (e *responseEcho) object(id string, created int64, status string, output []outputItem) *responseObject {
	o := &responseObject{ID: id, Object: "response", CreatedAt: created, Status: status, Instructions: e.Instructions,
		MaxOutputTokens: e.MaxOutputTokens, Model: e.Model, Output: output, ParallelToolCalls: e.ParallelToolCalls == nil || *e.ParallelToolCalls,
		Reasoning: reasoning{Effort: e.Effort}, Store: e.Store, Temperature: e.Temperature, Text: e.Text, ToolChoice: e.ToolChoice,
		TopP: e.TopP, Truncation: "disabled", Metadata: e.Metadata}
	if o.Output == nil {
		o.Output = []outputItem{}
	}
	if o.Metadata == nil {
		o.Metadata = map[string]string{}
	}
	if len(o.Text) == 0 {
		o.Text = json.RawMessage(`{"format":{"type":"text"}}`)
	}
	if len(o.ToolChoice) == 0 {
		o.ToolChoice = json.RawMessage(`"auto"`)
	}
	o.Tools = json.RawMessage(`[]`)
	if len(e.Tools) > 0 {
		o.Tools, _ = json.Marshal(e.Tools)
	}
	if e.PreviousResponseID != "" {
		o.PreviousResponseID = &e.PreviousResponseID
	}
	if e.User != "" {
		o.User = &e.User
	}
	return o
}

// finish sets what the end of a run decides: the status and why, and the
// usage.
func (o *responseObject) finish(status, reason string, u *beamclaw.Usage) {
	o.Status = status
	switch status {
	case session.StatusIncomplete:
		o.IncompleteDetails = &incomplete{Reason: reason}
	case session.StatusFailed:
		o.Error = &responseError{Code: "server_error", Message: reason}
	}
	if u != nil {
		o.Usage = &responseUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens,
			InputTokensDetails: map[string]int{"cached_tokens": u.CachedTokens}, OutputTokensDetails: map[string]int{"reasoning_tokens": 0}}
	}
}

// storedObject renders a stored response.
func storedObject(r session.Response) (*responseObject, error) {
	var e responseEcho
	if len(r.Echo) > 0 {
		if err := json.Unmarshal(r.Echo, &e); err != nil {
			return nil, err
		}
	}
	o := e.object(r.ID, r.Created.Unix(), r.Status, itemsOf(r.ID, r.Output))
	o.finish(r.Status, r.Reason, &r.Usage)
	return o, nil
}

// itemsOf is the output items of a run's messages: each assistant
// message's text, then the calls of the agent's tools with their results,
// then the calls of the client's functions (the order the run reported
// them in: liveResponse builds the same items).
func itemsOf(respID string, msgs []beamclaw.Message) []outputItem {
	results := map[string]string{}
	for _, m := range msgs {
		if m.Role == beamclaw.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	var items []outputItem
	texts := 0
	for _, m := range msgs {
		if m.Role != beamclaw.RoleAssistant {
			continue
		}
		if m.Content != "" {
			items = append(items, messageItem(respID, texts, m.Content, "completed"))
			texts++
		}
		for _, c := range m.ToolCalls { // the agent's calls ran first; the client's end the run
			if res, ok := results[c.ID]; ok {
				items = append(items, toolItem(c, &res))
			}
		}
		for _, c := range m.ToolCalls {
			if _, ok := results[c.ID]; !ok {
				items = append(items, functionItem(c, "completed"))
			}
		}
	}
	return items
}

func messageItem(respID string, n int, text, status string) outputItem {
	return outputItem{ID: "msg_" + strings.TrimPrefix(respID, "resp_") + "_" + strconv.Itoa(n), Type: "message", Status: status,
		Role: "assistant", Content: []outputPart{{Type: "output_text", Text: text, Annotations: []struct{}{}, Logprobs: []struct{}{}}}}
}

// toolItem is a call of one of the agent's own tools; output is nil
// while it runs.
func toolItem(c beamclaw.ToolCall, output *string) outputItem {
	args := string(c.Args)
	status := "completed"
	if output == nil {
		status = "in_progress"
	}
	return outputItem{ID: "mcp_" + c.ID, Type: "mcp_call", Status: status, Name: c.Name, Arguments: &args,
		ServerLabel: serverLabel, Output: output}
}

func functionItem(c beamclaw.ToolCall, status string) outputItem {
	args := string(c.Args)
	return outputItem{ID: "fc_" + c.ID, Type: "function_call", Status: status, CallID: c.ID, Name: c.Name, Arguments: &args}
}
