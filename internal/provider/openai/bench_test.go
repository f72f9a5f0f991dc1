package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// BenchmarkChatStream200 measures a 200-chunk streamed answer from the
// fake over loopback: SSE parsing, chunk decoding, think filtering and
// assembly (plus the fake's own cost).
func BenchmarkChatStream200(b *testing.B) {
	srv := fakellm.New(b)
	chunks := make([]string, 200)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("word%d ", i)
	}
	reply := fakellm.Reply{Chunks: chunks}
	c, _ := newTestClient(b, srv)
	req := userReq("bench")
	b.ReportAllocs()
	for b.Loop() {
		srv.Script(reply)
		resp, err := c.Chat(context.Background(), req, func(string) {})
		if err != nil || len(resp.Message.Content) == 0 {
			b.Fatalf("Chat: %v", err)
		}
	}
}

// BenchmarkDecode200 measures the client side alone: reading and
// assembling a recorded 200-chunk stream from memory.
func BenchmarkDecode200(b *testing.B) {
	var stream []byte
	for i := range 200 {
		stream = fmt.Appendf(stream, `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"word%d "},"finish_reason":null}]}`+"\n\n", i)
	}
	stream = append(stream, "data: [DONE]\n\n"...)
	c := &Client{t: &transport{name: "bench"}}
	b.ReportAllocs()
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		a := newAssembler(func(string) {})
		if err := c.readStream(bytesReader(stream), a); err != nil {
			b.Fatal(err)
		}
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// BenchmarkEncodeBody measures encoding a request of a 10 KB system prompt,
// 20 messages and 12 tools of ~1 KB of schema each: "cached" is the client's path, "marshal"
// the whole request through json.Marshal.
func BenchmarkEncodeBody(b *testing.B) {
	req := userReq("bench")
	req.Messages = append([]beamclaw.Message{{Role: beamclaw.RoleSystem, Content: strings.Repeat("# Section\n\nA workspace file with \"quotes\" and prose.\n", 200)}}, req.Messages...)
	for i := range 20 {
		req.Messages = append(req.Messages, beamclaw.Message{Role: beamclaw.RoleUser, Content: fmt.Sprintf("message %d with some words in it", i)})
	}
	schema := `{"type":"object","properties":{` + strings.Repeat(`"p":{"type":"string","description":"a parameter with a description of some length"},`, 12) + `"q":{"type":"integer"}},"required":["q"]}`
	for i := range 12 {
		req.Tools = append(req.Tools, beamclaw.ToolDef{Name: fmt.Sprintf("tool_%d", i), Description: "does a thing", Parameters: json.RawMessage(schema)})
	}
	c := &Client{t: &transport{name: "bench"}}
	long := req
	for i := range 200 { // a long conversation: 200 more messages of ~200 bytes
		long.Messages = append(long.Messages, beamclaw.Message{Role: beamclaw.RoleAssistant,
			Content: fmt.Sprintf("answer %d: %s", i, strings.Repeat("some words of a reply with \"quotes\" <b>, ", 5))})
	}
	// The same long conversation named (ChatRequest.Conversation), as the
	// loop sends it: its messages come from the conversation cache.
	longConv := long
	longConv.Conversation = "bench"
	// An agent's conversation: 50 rounds of a tool call, its result and an
	// answer (tool calls are not in the per-message cache).
	tooly := req
	for i := range 50 {
		id := fmt.Sprint("call_", i)
		tooly.Messages = append(tooly.Messages,
			beamclaw.Message{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: id, Name: "read_file", Args: json.RawMessage(`{"path":"notes/today.md"}`)}}},
			beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: id, Name: "read_file", Content: strings.Repeat("a line of the file\n", 10)},
			beamclaw.Message{Role: beamclaw.RoleAssistant, Content: fmt.Sprint("done ", i)})
	}
	toolyConv := tooly
	toolyConv.Conversation = "bench-tools"
	for _, bc := range []struct {
		name string
		req  beamclaw.ChatRequest
	}{{"long", long}, {"long-conversation", longConv}, {"tools", tooly}, {"tools-conversation", toolyConv}, {"cached", req}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte // reused, as the client's pool does
			for b.Loop() {
				var err error
				if buf, err = c.encodeBody(buf, bc.req, "m"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The long conversation with cache breakpoints (cache_breakpoints on,
	// or an Anthropic model on OpenRouter): the stable system part and
	// the previous turn's end marked, the rest still from the caches.
	marked := longConv
	marked.System, marked.Messages, marked.TurnStart = req.Messages[0].Content, longConv.Messages[1:], len(longConv.Messages)-2
	b.Run("long-conversation-marked", func(b *testing.B) {
		cm := &Client{t: &transport{name: "bench"}, marks: provider.CacheOn}
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = cm.encodeBody(buf, marked, "m"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(encodeChat(req, "m", false)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
