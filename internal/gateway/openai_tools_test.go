package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func lookupCall() beamclaw.RunEvent {
	return beamclaw.RunEvent{Type: beamclaw.EvFinal, Calls: []beamclaw.ToolCall{
		{ID: "call_1", Name: "lookup", Args: json.RawMessage(`{"q":"ada"}`)}}}
}

var lookupTool = openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "lookup",
	Parameters: openai.FunctionParameters{"type": "object"}})

// The client's function reaches the run; a run that stops at its call
// answers with the call and finish_reason tool_calls, and the turn is
// marked with the call in the client's copy.
func TestChatFunctionCallAnswer(t *testing.T) {
	fake := &oaiSessions{events: []beamclaw.RunEvent{lookupCall()}}
	env := newOAIEnv(t, fake, OpenAIOptions{}, Options{})
	resp, err := env.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "default", User: openai.String("ann"), Tools: []openai.ChatCompletionToolUnionParam{lookupTool},
		ToolChoice: openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")},
		Messages:   []openai.ChatCompletionMessageParamUnion{openai.UserMessage("who is ada?")}})
	if err != nil {
		t.Fatal(err)
	}
	ch := resp.Choices[0]
	if ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 1 || ch.Message.ToolCalls[0].Function.Name != "lookup" ||
		ch.Message.ToolCalls[0].Function.Arguments != `{"q":"ada"}` || ch.Message.ToolCalls[0].ID != "call_1" {
		t.Fatalf("choice %+v, want the lookup call", ch)
	}
	in := fake.lastInbound(t)
	if len(in.Functions) != 1 || in.Functions[0].Source != beamclaw.SourceClient || string(in.Sampling.ToolChoice) != `"required"` {
		t.Errorf("inbound functions %+v tool_choice %v", in.Functions, in.Sampling)
	}
	fake.mu.Lock()
	marks := fake.marks
	fake.mu.Unlock()
	held := []chatMessage{{Role: "user", Content: chatContent{Text: "who is ada?"}},
		{Role: "assistant", ToolCalls: wireCalls(lookupCall().Calls)}}
	if len(marks) != 1 || !strings.HasSuffix(marks[0], " "+transcriptKey(held)) {
		t.Errorf("marks %v, want the copy with the call", marks)
	}

	// The result is the next request's new input, after the client's copy.
	fake.events = []beamclaw.RunEvent{oaiFinal("Ada Lovelace", 1, 1)}
	params := openai.ChatCompletionNewParams{Model: "default", User: openai.String("ann"), Tools: []openai.ChatCompletionToolUnionParam{lookupTool},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("who is ada?"), ch.Message.ToParam(),
			openai.ToolMessage("born 1815", "call_1")}}
	resp, err = env.client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != "Ada Lovelace" || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("answer %+v", resp.Choices[0])
	}
	in = fake.lastInbound(t)
	if in.Content != "" || len(in.ToolResults) != 1 || in.ToolResults[0].ToolCallID != "call_1" || in.ToolResults[0].Content != "born 1815" {
		t.Errorf("inbound results %+v content %q", in.ToolResults, in.Content)
	}
	if in.Transcript == nil || in.Transcript.Key != transcriptKey(held) {
		t.Errorf("transcript key %v, want the marked one", in.Transcript)
	}
}

// Streamed, the call comes as a tool_calls delta the SDK's accumulator
// assembles, then finish_reason tool_calls.
func TestChatFunctionCallStreamed(t *testing.T) {
	fake := &oaiSessions{events: []beamclaw.RunEvent{lookupCall()}}
	env := newOAIEnv(t, fake, OpenAIOptions{}, Options{})
	stream := env.client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model: "default", Tools: []openai.ChatCompletionToolUnionParam{lookupTool},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("who is ada?")}})
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	ch := acc.Choices[0]
	if ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 1 || ch.Message.ToolCalls[0].Function.Arguments != `{"q":"ada"}` {
		t.Fatalf("accumulated %+v", ch)
	}
	fake.mu.Lock()
	fns := fake.functions
	fake.mu.Unlock()
	if len(fns) != 1 || len(fns[0]) != 1 {
		t.Errorf("ephemeral run's functions %v", fns)
	}
}

// The client's results are tool results like any other: scrubbed before
// they reach a session or a model.
func TestChatFunctionResultsAreScrubbed(t *testing.T) {
	fake := &oaiSessions{events: []beamclaw.RunEvent{oaiFinal("ok", 1, 1)}}
	scrub := func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") }
	env := newOAIEnv(t, fake, OpenAIOptions{Scrub: scrub}, Options{})
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("log in"),
		{OfAssistant: &openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{
			{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: "c1",
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "lookup", Arguments: "{}"}}}}}},
		openai.ToolMessage("password hunter2", "c1")}
	for _, user := range []string{"ann", ""} { // stored, and ephemeral
		params := openai.ChatCompletionNewParams{Model: "default", Tools: []openai.ChatCompletionToolUnionParam{lookupTool}, Messages: msgs}
		if user != "" {
			params.User = openai.String(user)
		}
		if _, err := env.client.Chat.Completions.New(context.Background(), params); err != nil {
			t.Fatal(err)
		}
	}
	if in := fake.lastInbound(t); len(in.ToolResults) != 1 || in.ToolResults[0].Content != "password [REDACTED]" {
		t.Errorf("stored turn's results %+v", in.ToolResults)
	}
	if h := fake.lastHistory(t); h[len(h)-1].Content != "password [REDACTED]" {
		t.Errorf("ephemeral turn's result %q", h[len(h)-1].Content)
	}
}

// At most 128 functions, each name once.
func TestFunctionDefsLimits(t *testing.T) {
	f := functionTool{Type: "function", Name: "f"}
	if _, err := functionDefs([]functionTool{f, f}, nil); err == nil || !strings.Contains(err.Error(), "declared twice") {
		t.Errorf("a name twice: %v", err)
	}
	many := make([]functionTool, maxFunctions+1)
	for i := range many {
		many[i] = functionTool{Type: "function", Name: fmt.Sprintf("f%d", i)}
	}
	if _, err := functionDefs(many, nil); err == nil || !strings.Contains(err.Error(), "array too long") {
		t.Errorf("%d functions: %v", len(many), err)
	}
	if defs, err := functionDefs(many[:maxFunctions], nil); err != nil || len(defs) != maxFunctions {
		t.Errorf("%d functions: %v", maxFunctions, err)
	}
}
