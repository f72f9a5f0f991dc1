package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider/providertest"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// A reasoning effort turns on extended thinking with its budget, the
// answer's cap raised above it; the thinking reaches neither onText nor
// the message.
func TestThinkingIsNeverShown(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Reasoning: "secret deliberation", Text: "The answer."})
	c, _ := newTestClient(t, srv)
	req := userReq("q")
	req.Sampling = &beamclaw.Sampling{ReasoningEffort: "medium"}
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), req, got.Add)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != "The answer." || resp.Message.Content != "The answer." {
		t.Errorf("streamed %q, message %q; want the text alone", got.Text(), resp.Message.Content)
	}
	b := sent(t, srv, 0)
	if b.Thinking == nil || b.Thinking.Type != "enabled" || b.Thinking.BudgetTokens != 4096 || b.MaxTokens != 4096+4096 {
		t.Errorf("thinking %+v, max_tokens %d; want enabled with 4096 and 8192", b.Thinking, b.MaxTokens)
	}
	req.Sampling = &beamclaw.Sampling{ReasoningEffort: "none"}
	if _, err := c.Chat(context.Background(), req, nil); err != nil || sent(t, srv, 1).Thinking != nil {
		t.Errorf("effort none sent thinking: %v", err)
	}
}

// Within a tool loop the thinking of the answer that called the tools
// goes back first in its assistant message, unchanged (the fake, like
// the API, refuses the loop otherwise); a loop whose thinking is not
// kept here (another provider answered it) is continued without
// thinking, and so is a call that forces a tool.
func TestThinkingGoesBackWithinAToolLoop(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetDefault(fakellm.Rules)
	srv.Script(fakellm.Reply{Reasoning: "I should read it.", ToolCalls: []fakellm.ToolCall{{Name: "read_file", Arguments: `{"path":"a"}`}}})
	c, _ := newTestClient(t, srv)
	effort := &beamclaw.Sampling{ReasoningEffort: "low"}
	msgs := []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "read a"}}
	resp, err := c.Chat(context.Background(), beamclaw.ChatRequest{Messages: msgs, Sampling: effort}, nil)
	if err != nil || len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("Chat = %+v, %v", resp, err)
	}
	call := resp.Message.ToolCalls[0]
	msgs = append(msgs, resp.Message, beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: "body"})
	resp, err = c.Chat(context.Background(), beamclaw.ChatRequest{Messages: msgs, Sampling: effort}, nil)
	if err != nil || resp.Message.Content != "tool read_file said: body" {
		t.Fatalf("the loop's next call = %q, %v", resp.Message.Content, err)
	}
	b := sent(t, srv, 1)
	first := b.Messages[1].Content[0]
	if b.Thinking == nil || first.Type != "thinking" || first.Thinking != "I should read it." || first.Signature == "" {
		t.Errorf("thinking %+v; the assistant message starts with %+v", b.Thinking, first)
	}
	if n := strings.Count(string(srv.Requests()[1].Body), "I should read it."); n != 1 {
		t.Errorf("the thinking went %d times", n)
	}
	foreign := []beamclaw.Message{msgs[0],
		{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "call_elsewhere", Name: "read_file", Args: json.RawMessage(`{}`)}}},
		{Role: beamclaw.RoleTool, ToolCallID: "call_elsewhere", Name: "read_file", Content: "body"}}
	if _, err := c.Chat(context.Background(), beamclaw.ChatRequest{Messages: foreign, Sampling: effort}, nil); err != nil || sent(t, srv, 2).Thinking != nil {
		t.Errorf("a loop without kept thinking: %v (thinking sent: %v)", err, sent(t, srv, 2).Thinking != nil)
	}
	forced := &beamclaw.Sampling{ReasoningEffort: "high", ToolChoice: json.RawMessage(`"required"`)}
	req := beamclaw.ChatRequest{Messages: msgs[:1], Sampling: forced, Tools: []beamclaw.ToolDef{{Name: "read_file"}}}
	if _, err := c.Chat(context.Background(), req, nil); err != nil || sent(t, srv, 3).Thinking != nil {
		t.Errorf("a forced tool with thinking: %v", err)
	}
}
