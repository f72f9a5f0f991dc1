package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// marksOf lists, per message of an encoded body, the texts of its parts
// that carry a cache breakpoint.
func marksOf(t *testing.T, body []byte) (marked []string, system string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	for i, m := range req.Messages {
		var parts []struct {
			Text         string        `json:"text"`
			CacheControl *cacheControl `json:"cache_control"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			if i == 0 && m.Role == "system" {
				_ = json.Unmarshal(m.Content, &system)
			}
			continue
		}
		for _, p := range parts {
			if i == 0 && m.Role == "system" {
				system += p.Text
			}
			if p.CacheControl != nil && p.CacheControl.Type == "ephemeral" {
				marked = append(marked, m.Role+": "+p.Text)
			}
		}
	}
	return marked, system
}

func turnRequest() beamclaw.ChatRequest {
	return beamclaw.ChatRequest{System: "stable prompt\n", Context: "\n# memory of ana\n", TurnStart: 2,
		Messages: []beamclaw.Message{
			{Role: beamclaw.RoleUser, Content: "first question"},
			{Role: beamclaw.RoleAssistant, Content: "first answer"},
			{Role: beamclaw.RoleUser, Content: "second question"},
		}}
}

// With breakpoints, the stable system part and the previous turn's end
// are marked, and the model still reads the same system text; without,
// nothing is marked.
func TestCacheBreakpoints(t *testing.T) {
	for _, tt := range []struct {
		name, marks, baseURL, model string
		want                        []string
	}{
		{"on", provider.CacheOn, "http://127.0.0.1:1/v1", "m", []string{"system: stable prompt\n", "assistant: first answer"}},
		{"auto on openrouter, anthropic model", provider.CacheAuto, "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4-5",
			[]string{"system: stable prompt\n", "assistant: first answer"}},
		{"auto on openrouter, gemini model", "", "https://openrouter.ai/api/v1", "google/gemini-2.5-pro",
			[]string{"system: stable prompt\n", "assistant: first answer"}},
		{"auto on openrouter, openai model", provider.CacheAuto, "https://openrouter.ai/api/v1", "openai/gpt-5", nil},
		{"auto elsewhere", provider.CacheAuto, "https://api.openai.com/v1", "anthropic/claude-sonnet-4-5", nil},
		{"off", provider.CacheOff, "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4-5", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(Options{BaseURL: tt.baseURL, Model: tt.model, CacheBreakpoints: tt.marks})
			if err != nil {
				t.Fatal(err)
			}
			body, err := c.encodeBody(nil, turnRequest(), tt.model)
			if err != nil {
				t.Fatal(err)
			}
			marked, system := marksOf(t, body)
			if strings.Join(marked, "|") != strings.Join(tt.want, "|") {
				t.Errorf("marked %q, want %q\n%s", marked, tt.want, body)
			}
			if system != "stable prompt\n\n# memory of ana\n" {
				t.Errorf("the model reads the system prompt %q", system)
			}
		})
	}
}

// A first turn marks the stable prefix only; a previous turn ending in
// a tool result gets its mark on the result.
func TestCacheBreakpointsAtTurnEdges(t *testing.T) {
	c, err := New(Options{BaseURL: "http://127.0.0.1:1/v1", Model: "m", CacheBreakpoints: provider.CacheOn})
	if err != nil {
		t.Fatal(err)
	}
	first := beamclaw.ChatRequest{System: "stable", Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hi"}}}
	body, _ := c.encodeBody(nil, first, "m")
	if marked, _ := marksOf(t, body); strings.Join(marked, "|") != "system: stable" {
		t.Errorf("first turn marked %q", marked)
	}
	tool := beamclaw.ChatRequest{System: "stable", TurnStart: 3, Messages: []beamclaw.Message{
		{Role: beamclaw.RoleUser, Content: "list"},
		{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "c1", Name: "ls", Args: json.RawMessage(`{}`)}}},
		{Role: beamclaw.RoleTool, ToolCallID: "c1", Name: "ls", Content: "a b"},
		{Role: beamclaw.RoleUser, Content: "next"},
	}}
	body, _ = c.encodeBody(nil, tool, "m")
	if marked, _ := marksOf(t, body); strings.Join(marked, "|") != "system: stable|tool: a b" {
		t.Errorf("after a tool round marked %q", marked)
	}
}

// unmarked is a body's messages with the breakpoints taken out: parts
// that carried one back to their text, so a marked body compares with
// the unmarked one.
func unmarked(t *testing.T, body []byte) []any {
	t.Helper()
	var req struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	out := make([]any, 0, len(req.Messages))
	for _, m := range req.Messages {
		if parts, ok := m["content"].([]any); ok {
			var text strings.Builder
			textOnly := true
			for _, p := range parts {
				pm := p.(map[string]any)
				delete(pm, "cache_control")
				if pm["type"] != "text" {
					textOnly = false
				}
				s, _ := pm["text"].(string)
				text.WriteString(s)
			}
			if textOnly && (m["role"] != "user" || len(parts) == 1) {
				m["content"] = text.String()
			}
		}
		out = append(out, m)
	}
	return out
}

// A marked body says what the unmarked one says, turn after turn of one
// conversation (its cache warm), with tool calls and attachments.
func TestCacheBreakpointsChangeNothingElse(t *testing.T) {
	on, _ := New(Options{BaseURL: "http://127.0.0.1:1/v1", Model: "m", CacheBreakpoints: provider.CacheOn})
	off, _ := New(Options{BaseURL: "http://127.0.0.1:1/v1", Model: "m", CacheBreakpoints: provider.CacheOff})
	conv := goldenConversation()
	conv.System, conv.Context, conv.Conversation = "stable", "context", "c1"
	for turn := 1; turn <= len(conv.Messages); turn++ {
		req := conv
		req.Messages = conv.Messages[:turn]
		req.TurnStart = turn - 1
		a, err := on.encodeBody(nil, req, "m")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := off.encodeBody(nil, req, "m")
		if diff := cmp.Diff(unmarked(t, b), unmarked(t, a)); diff != "" {
			t.Errorf("turn %d: marked and unmarked bodies differ (-unmarked +marked):\n%s", turn, diff)
		}
		if marked, _ := marksOf(t, a); len(marked) == 0 {
			t.Errorf("turn %d: nothing marked", turn)
		}
	}
	// Another user's context on the same client: its own, not the cached one.
	req := conv
	req.Context = "another user's context"
	a, _ := on.encodeBody(nil, req, "m")
	if _, system := marksOf(t, a); system != "stableanother user's context" {
		t.Errorf("the second context reads %q", system)
	}
}
