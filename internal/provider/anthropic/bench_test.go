package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// BenchmarkChatAnthropic measures one turn's model call as a real agent
// makes it, over loopback against the fake: a 10 KB system prompt, 20
// messages and 12 tools of ~1 KB of schema encoded by the SDK, then a
// 200-delta streamed answer decoded and assembled (plus the fake's own
// cost).
func BenchmarkChatAnthropic(b *testing.B) {
	srv := fakellm.New(b)
	chunks := make([]string, 200)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("word%d ", i)
	}
	reply := fakellm.Reply{Chunks: chunks}
	c, _ := newTestClient(b, srv)
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		srv.Script(reply)
		resp, err := c.Chat(context.Background(), req, func(string) {})
		if err != nil || len(resp.Message.Content) == 0 {
			b.Fatalf("Chat: %v", err)
		}
		srv.Reset() // the fake keeps every request: not the client's cost
	}
}

// benchRequest is an agent's request: a long system prompt, a history
// with a tool round, and a dozen tools.
func benchRequest() beamclaw.ChatRequest {
	req := beamclaw.ChatRequest{System: strings.Repeat("You are a careful assistant. ", 360), Conversation: "bench"}
	for i := range 10 {
		req.Messages = append(req.Messages,
			beamclaw.Message{Role: beamclaw.RoleUser, Content: fmt.Sprintf("question %d: %s", i, strings.Repeat("words ", 40))},
			beamclaw.Message{Role: beamclaw.RoleAssistant, Content: fmt.Sprintf("answer %d: %s", i, strings.Repeat("more words ", 30))})
	}
	req.Messages = append(req.Messages, beamclaw.Message{Role: beamclaw.RoleUser, Content: "bench"})
	req.TurnStart = len(req.Messages) - 1
	prop := `"p%d":{"type":"string","description":"` + strings.Repeat("a parameter ", 6) + `"}`
	for i := range 12 {
		var props []string
		for j := range 12 {
			props = append(props, fmt.Sprintf(prop, j))
		}
		req.Tools = append(req.Tools, beamclaw.ToolDef{Name: fmt.Sprintf("tool_%d", i), Description: "Does a thing.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":["p0"]}`)})
	}
	return req
}
