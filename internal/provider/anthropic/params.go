package anthropic

import (
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// encode is the Messages API request of req.
func (c *Client) encode(req beamclaw.ChatRequest, model string) *sdk.MessageNewParams {
	choice, forced := toolChoice(req.Sampling, len(req.Tools) > 0)
	budget := 0
	if s := req.Sampling; s != nil && !forced { // the API refuses thinking with a forced tool
		budget = thinkingBudgets[s.ReasoningEffort]
	}
	think := c.loopThinking(req.Messages, budget > 0)
	if think == nil {
		budget = 0
	}
	turnStart := req.TurnStart
	if !c.marks {
		turnStart = 0
	}
	system, msgs := encodeMessages(req.Messages, turnStart, think)
	p := &sdk.MessageNewParams{Model: sdk.Model(model), Messages: msgs, ToolChoice: choice,
		System: systemBlocks(req.System, req.Context, system, c.marks), Tools: tools(req.Tools)}
	maxTokens := req.Sampling.MaxTokensWithin(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = beamclaw.DefaultAnswerCap // the API requires one
	}
	if budget > 0 {
		if maxTokens <= budget {
			maxTokens += budget // thinking counts toward max_tokens: the answer keeps its cap
		}
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
	}
	p.MaxTokens = int64(maxTokens)
	if s := req.Sampling; s != nil {
		// temperature and top_p are not sent: the Messages API version
		// the SDK speaks has no such fields (nor seed, penalties or
		// response_format), and an unknown field is refused
		p.StopSequences = s.Stop
	}
	return p
}

// loopThinking is the thinking to hand back, by message index, for the
// tool loop msgs end in (empty when they end in none); nil when thinking
// is off or cannot be on: an answer of the loop whose thinking is not
// kept (it came from another provider, or before a restart), since the
// API refuses thinking then.
func (c *Client) loopThinking(msgs []beamclaw.Message, on bool) map[int][]thought {
	if !on {
		return nil
	}
	think := map[int][]thought{}
	for i := toolLoop(msgs); i < len(msgs); i++ {
		if m := msgs[i]; m.Role == beamclaw.RoleAssistant {
			ts := c.thoughts.of(m.ToolCalls)
			if ts == nil {
				return nil
			}
			think[i] = ts
		}
	}
	return think
}

// systemBlocks are the system prompt's blocks: the stable System (with
// the cache breakpoint when marks), then the per-user Context, then the
// system messages of the conversation; empty ones left out.
func systemBlocks(system, context string, folded []string, marks bool) []sdk.TextBlockParam {
	var out []sdk.TextBlockParam
	if system != "" {
		b := sdk.TextBlockParam{Text: system}
		if marks {
			b.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		out = append(out, b)
	}
	if context != "" {
		out = append(out, sdk.TextBlockParam{Text: context})
	}
	for _, s := range folded {
		out = append(out, sdk.TextBlockParam{Text: s})
	}
	return out
}

// emptySchema is the input schema of a tool without one.
var emptySchema = sdk.ToolInputSchemaParam{Properties: map[string]any{}}

// tools are defs as Anthropic's tools: a JSON Schema object's properties
// and required, its other keywords as they are.
func tools(defs []beamclaw.ToolDef) []sdk.ToolUnionParam {
	if len(defs) == 0 {
		return nil
	}
	out := make([]sdk.ToolUnionParam, 0, len(defs))
	for _, d := range defs {
		t := &sdk.ToolParam{Name: d.Name, InputSchema: inputSchema(d.Parameters)}
		if d.Description != "" {
			t.Description = sdk.String(d.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: t})
	}
	return out
}

// inputSchema splits a JSON Schema object into the SDK's input schema
// (only its top level is read; the rest goes as raw JSON).
func inputSchema(params json.RawMessage) sdk.ToolInputSchemaParam {
	var top map[string]json.RawMessage
	if json.Unmarshal(params, &top) != nil || len(top) == 0 {
		return emptySchema
	}
	s := sdk.ToolInputSchemaParam{Properties: json.RawMessage(`{}`)}
	for k, v := range top {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			_ = json.Unmarshal(v, &s.Required)
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s
}

// toolChoice is the client's tool_choice and parallel_tool_calls in
// Anthropic's form ("required" is any, a named function is a tool), and
// whether it forces a tool. Without tools none is sent.
func toolChoice(s *beamclaw.Sampling, haveTools bool) (sdk.ToolChoiceUnionParam, bool) {
	if s == nil || !haveTools {
		return sdk.ToolChoiceUnionParam{}, false
	}
	noParallel := s.ParallelToolCalls != nil && !*s.ParallelToolCalls
	var disable sdk.ToolChoiceAutoParam
	if noParallel {
		disable.DisableParallelToolUse = sdk.Bool(true)
	}
	var name string
	var fn struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(s.ToolChoice, &name) != nil && json.Unmarshal(s.ToolChoice, &fn) == nil {
		name = "function:" + fn.Function.Name
	}
	switch {
	case name == "none":
		return sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}, false
	case name == "required":
		return sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{DisableParallelToolUse: disable.DisableParallelToolUse}}, true
	case len(name) > len("function:") && name[:len("function:")] == "function:":
		return sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{Name: name[len("function:"):],
			DisableParallelToolUse: disable.DisableParallelToolUse}}, true
	case name == "auto" || noParallel:
		return sdk.ToolChoiceUnionParam{OfAuto: &disable}, false
	}
	return sdk.ToolChoiceUnionParam{}, false
}
