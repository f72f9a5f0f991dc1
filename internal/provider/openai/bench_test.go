package openai

import (
	"bytes"
	"context"
	"fmt"
	"testing"

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
