package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// wireBody is the part of a Messages API body the tests read.
type wireBody struct {
	MaxTokens     int             `json:"max_tokens"`
	StopSequences []string        `json:"stop_sequences"`
	System        []wireBlock     `json:"system"`
	Messages      []wireMessage   `json:"messages"`
	Tools         []wireTool      `json:"tools"`
	ToolChoice    json.RawMessage `json:"tool_choice"`
	Thinking      *struct {
		Type         string `json:"type"`
		BudgetTokens int    `json:"budget_tokens"`
	} `json:"thinking"`
	Temperature *float64 `json:"temperature"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type wireBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Source       json.RawMessage `json:"source,omitempty"`
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
	Content      json.RawMessage `json:"content,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
}

type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// sent decodes the body of the fake's request n.
func sent(t *testing.T, srv *fakellm.Server, n int) wireBody {
	t.Helper()
	var b wireBody
	if err := json.Unmarshal(srv.Requests()[n].Body, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// shape is a message as role and its blocks' types, a * after a block
// that carries the cache breakpoint.
func shape(msgs []wireMessage) []string {
	var out []string
	for _, m := range msgs {
		s := m.Role + ":"
		for _, b := range m.Content {
			s += " " + b.Type
			if b.CacheControl != nil {
				s += "*"
			}
		}
		out = append(out, s)
	}
	return out
}

// A conversation reaches the API in its shape: system messages folded
// into the system blocks after System (the breakpoint) and Context;
// turns alternating, tool results first in one user turn with the text
// after them; images as base64 blocks; tool calls as tool_use blocks of
// their arguments; the second breakpoint on the last block of the
// previous turn; tools with their schemas; the client's choice of tool
// and stop sequences in Anthropic's terms.
func TestEncodeConversation(t *testing.T) {
	srv := fakellm.New(t)
	c, _ := newTestClient(t, srv)
	no := false
	req := beamclaw.ChatRequest{System: "You are helpful.", Context: "The user is Ana.", TurnStart: 5,
		Messages: []beamclaw.Message{
			{Role: beamclaw.RoleUser, Content: "what is in the picture?", Attachments: []beamclaw.Attachment{{MIME: "image/png", Data: []byte("PNG!")}}},
			{Role: beamclaw.RoleSystem, Content: "Answer briefly."},
			{Role: beamclaw.RoleAssistant, Content: "Checking.", ToolCalls: []beamclaw.ToolCall{
				{ID: "toolu_1", Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)},
				{ID: "call:2", Name: "now", Args: json.RawMessage(`"not json"`)}}},
			{Role: beamclaw.RoleTool, ToolCallID: "toolu_1", Name: "read_file", Content: "file body"},
			{Role: beamclaw.RoleTool, ToolCallID: "call:2", Name: "now", Content: "noon"},
			{Role: beamclaw.RoleUser, Content: "and now?"},
		},
		Tools: []beamclaw.ToolDef{{Name: "read_file", Description: "Reads a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}},
		Sampling: &beamclaw.Sampling{Stop: []string{"END"}, MaxTokens: 300, ParallelToolCalls: &no,
			ToolChoice: json.RawMessage(`{"type":"function","function":{"name":"read_file"}}`)},
	}
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	b := sent(t, srv, 0)
	wantSystem := []string{"You are helpful.", "The user is Ana.", "Answer briefly."}
	var gotSystem []string
	for _, s := range b.System {
		gotSystem = append(gotSystem, s.Text)
	}
	if diff := cmp.Diff(wantSystem, gotSystem); diff != "" || b.System[0].CacheControl == nil || b.System[1].CacheControl != nil {
		t.Errorf("system blocks (-want +got):\n%s\nbreakpoints %s, %s", diff, b.System[0].CacheControl, b.System[1].CacheControl)
	}
	want := []string{"user: text image", "assistant: text tool_use tool_use", "user: tool_result tool_result* text"}
	if diff := cmp.Diff(want, shape(b.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if n := strings.Count(string(srv.Requests()[0].Body), `"cache_control"`); n != 2 {
		t.Errorf("%d cache breakpoints, want exactly 2", n)
	}
	img, calls, results := b.Messages[0].Content[1], b.Messages[1].Content, b.Messages[2].Content
	if string(img.Source) != `{"data":"UE5HIQ==","media_type":"image/png","type":"base64"}` {
		t.Errorf("image source = %s", img.Source)
	}
	if string(calls[1].Input) != `{"path":"a.txt"}` || calls[2].ID != "call_2" || string(calls[2].Input) != "{}" {
		t.Errorf("tool_use blocks = %+v", calls[1:])
	}
	if results[0].ToolUseID != "toolu_1" || results[1].ToolUseID != "call_2" || !strings.Contains(string(results[0].Content), "file body") {
		t.Errorf("tool_result blocks = %+v", results[:2])
	}
	if len(b.Tools) != 1 || b.Tools[0].Description != "Reads a file." ||
		string(b.Tools[0].InputSchema) != `{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object","additionalProperties":false}` {
		t.Errorf("tools = %+v (schema %s)", b.Tools, b.Tools[0].InputSchema)
	}
	if string(b.ToolChoice) != `{"name":"read_file","disable_parallel_tool_use":true,"type":"tool"}` || b.MaxTokens != 300 ||
		!cmp.Equal(b.StopSequences, []string{"END"}) {
		t.Errorf("tool_choice %s, max_tokens %d, stop %v", b.ToolChoice, b.MaxTokens, b.StopSequences)
	}
}

// cache_breakpoints: off sends no breakpoint.
func TestEncodeWithoutBreakpoints(t *testing.T) {
	srv := fakellm.New(t)
	c, _ := newTestClient(t, srv, func(o *Options) { o.CacheBreakpoints = provider.CacheOff })
	req := beamclaw.ChatRequest{System: "stable", TurnStart: 2, Messages: []beamclaw.Message{
		{Role: beamclaw.RoleUser, Content: "a"}, {Role: beamclaw.RoleAssistant, Content: "b"}, {Role: beamclaw.RoleUser, Content: "c"}}}
	if _, err := c.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Requests()[0].Body); strings.Contains(body, "cache_control") {
		t.Errorf("breakpoints sent with cache_breakpoints off: %s", body)
	}
}

// The previous turn's breakpoint lands on its last block even when the
// current turn merges into the same user message; without an earlier
// turn only the system breakpoint is sent; a conversation that starts
// with the assistant gets a user turn first; a result whose call is gone
// goes as text.
func TestEncodeEdges(t *testing.T) {
	msgs, system := func(ms ...beamclaw.Message) []beamclaw.Message { return ms }, []string(nil)
	_, out := encodeMessages(msgs(
		beamclaw.Message{Role: beamclaw.RoleUser, Content: "first"},
		beamclaw.Message{Role: beamclaw.RoleUser, Content: "second"}), 1, nil)
	if got := shapeOf(t, out); !cmp.Equal(got, []string{"user: text* text"}) {
		t.Errorf("merged turns = %v", got)
	}
	system, out = encodeMessages(msgs(
		beamclaw.Message{Role: beamclaw.RoleAssistant, Content: "hello"},
		beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: "gone", Name: "x", Content: "r"},
		beamclaw.Message{Role: beamclaw.RoleSystem, Content: "be brief"}), 0, nil)
	if got := shapeOf(t, out); !cmp.Equal(got, []string{"user: text", "assistant: text", "user: text"}) || !cmp.Equal(system, []string{"be brief"}) {
		t.Errorf("shape %v, system %v", got, system)
	}
}

// shapeOf encodes messages as the API gets them, as shape reads them.
func shapeOf(t *testing.T, msgs any) []string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var w []wireMessage
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return shape(w)
}

// tool_choice in the chat completions form becomes Anthropic's: auto,
// none, required as any, a function as a tool; parallel_tool_calls false
// disables parallel use; nothing without tools.
func TestToolChoice(t *testing.T) {
	no := false
	for _, tc := range []struct {
		choice   string
		parallel *bool
		want     string
		forced   bool
	}{
		{`"auto"`, nil, `{"type":"auto"}`, false},
		{`"none"`, nil, `{"type":"none"}`, false},
		{`"required"`, nil, `{"type":"any"}`, true},
		{`{"type":"function","function":{"name":"x"}}`, nil, `{"name":"x","type":"tool"}`, true},
		{``, &no, `{"disable_parallel_tool_use":true,"type":"auto"}`, false},
		{``, nil, `null`, false}, // not sent
	} {
		s := &beamclaw.Sampling{ParallelToolCalls: tc.parallel}
		if tc.choice != "" {
			s.ToolChoice = json.RawMessage(tc.choice)
		}
		choice, forced := toolChoice(s, true)
		b, _ := json.Marshal(choice)
		if string(b) != tc.want || forced != tc.forced {
			t.Errorf("toolChoice(%s, %v) = %s, forced %v; want %s, %v", tc.choice, tc.parallel, b, forced, tc.want, tc.forced)
		}
	}
	if choice, _ := toolChoice(&beamclaw.Sampling{ToolChoice: json.RawMessage(`"required"`)}, false); choice.OfAny != nil {
		t.Error("a tool choice without tools")
	}
}
