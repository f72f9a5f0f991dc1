package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// The client's own function tools, on both OpenAI APIs: offered to the
// model beside the agent's tools; a call to one ends the response with the
// call, and the client's result continues the run (docs/responses.md).

// maxFunctions bounds the tools a request may declare (OpenAI's own limit).
const maxFunctions = 128

// functionTool is one declared function, in either API's shape: chat
// completions nest it under "function", the Responses API does not.
type functionTool struct {
	Type       string          `json:"type"`
	Name       string          `json:"name,omitempty"`
	Desc       string          `json:"description,omitempty"`
	Parameters json.RawMessage `json:"parameters,omitempty"`
	Function   *struct {
		Name       string          `json:"name"`
		Desc       string          `json:"description,omitempty"`
		Parameters json.RawMessage `json:"parameters,omitempty"`
	} `json:"function,omitempty"`
}

// functionDefs checks the declared tools and returns them as the run's
// functions. agentTools are the names the agent's own tools use: a
// function may not take one.
func functionDefs(tools []functionTool, agentTools []string) ([]beamclaw.ToolDef, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	if len(tools) > maxFunctions {
		return nil, badRequest(fmt.Sprintf("Invalid 'tools': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", maxFunctions, len(tools)), "tools")
	}
	defs := make([]beamclaw.ToolDef, 0, len(tools))
	for i, t := range tools {
		param := fmt.Sprintf("tools[%d]", i)
		if t.Type != "function" {
			return nil, badRequest(fmt.Sprintf("%s.type %q is not supported: only function tools are (the agent's own tools run inside beamclaw)", param, t.Type), param+".type")
		}
		d := beamclaw.ToolDef{Name: t.Name, Description: t.Desc, Parameters: t.Parameters, Source: beamclaw.SourceClient}
		if f := t.Function; f != nil {
			d.Name, d.Description, d.Parameters = f.Name, f.Desc, f.Parameters
		}
		switch {
		case !schemaName().MatchString(d.Name):
			return nil, badRequest(fmt.Sprintf("Invalid '%s.name': a name of 1 to 64 letters, digits, '_' or '-' is required.", param), param+".name")
		case len(d.Parameters) > 0 && string(d.Parameters) != "null" && bytes.TrimSpace(d.Parameters)[0] != '{':
			return nil, badRequest(fmt.Sprintf("Invalid '%s.parameters': expected an object (a JSON Schema).", param), param+".parameters")
		case slices.Contains(agentTools, d.Name):
			return nil, badRequest(fmt.Sprintf("%s: the agent has its own tool named %q; name your function differently", param, d.Name), param+".name")
		case slices.ContainsFunc(defs, func(o beamclaw.ToolDef) bool { return o.Name == d.Name }):
			return nil, badRequest(fmt.Sprintf("%s: the function %q is declared twice", param, d.Name), param+".name")
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// toolChoice checks a tool_choice (either API's shape) against the
// declared functions and returns it in the chat completions wire form
// the provider is sent (nil: the model chooses).
func toolChoice(raw json.RawMessage, defs []beamclaw.ToolDef) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		switch mode {
		case "auto":
			return nil, nil
		case "none", "required":
			if len(defs) == 0 {
				return nil, badRequest("tool_choice is only allowed when 'tools' are specified.", "tool_choice")
			}
			return raw, nil
		}
		return nil, badRequest(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'none', 'auto' and 'required'.", mode), "tool_choice")
	}
	var named struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &named); err != nil || named.Type != "function" {
		return nil, badRequest("Invalid 'tool_choice': expected 'none', 'auto', 'required' or a function ({\"type\":\"function\",...}).", "tool_choice")
	}
	name := named.Name
	if named.Function != nil {
		name = named.Function.Name
	}
	if !slices.ContainsFunc(defs, func(d beamclaw.ToolDef) bool { return d.Name == name }) {
		return nil, badRequest(fmt.Sprintf("Invalid 'tool_choice': the function %q is not among the request's tools.", name), "tool_choice")
	}
	return json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": name}})
}

// withToolChoice sets choice on the run's sampling controls.
func withToolChoice(s *beamclaw.Sampling, choice json.RawMessage) *beamclaw.Sampling {
	if choice == nil {
		return s
	}
	if s == nil {
		s = &beamclaw.Sampling{}
	}
	s.ToolChoice = choice
	return s
}

// wireCalls are calls in the chat completions wire form.
func wireCalls(calls []beamclaw.ToolCall) []toolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]toolCall, len(calls))
	for i, c := range calls {
		out[i].ID, out[i].Type = c.ID, "function"
		out[i].Function.Name, out[i].Function.Arguments = c.Name, string(c.Args)
	}
	return out
}
