package gateway

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// BenchmarkWSTurn is one message over a real loopback WebSocket: message
// → ack, chunk, final (the fake session answers at once).
func BenchmarkWSTurn(b *testing.B) {
	fake := newWSFake()
	fake.finished = make(chan struct{}) // nobody waits for runs here
	fake.script = func(_ beamclaw.Inbound, runID string) []beamclaw.RunEvent {
		return []beamclaw.RunEvent{{Type: beamclaw.EvChunk, RunID: runID, Text: "hello "},
			{Type: beamclaw.EvFinal, RunID: runID, Text: "hello world"}}
	}
	env := startWS(b, fake, WSOptions{}, Options{})
	c := env.dial(b, nil)
	env.hello(b, c, protocol.ClientFrame{Agent: "default"})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if err := c.WriteJSON(protocol.ClientFrame{Type: "message", ID: fmt.Sprint(i), Content: "hi"}); err != nil {
			b.Fatal(err)
		}
		for {
			var f protocol.ServerFrame
			if err := c.ReadJSON(&f); err != nil {
				b.Fatal(err)
			}
			if f.Type == protocol.FrameFinal {
				break
			}
		}
	}
}

// BenchmarkWSChunkFrame is the per-chunk cost on the session's side:
// event → frame → JSON.
func BenchmarkWSChunkFrame(b *testing.B) {
	ev := beamclaw.RunEvent{Type: beamclaw.EvChunk, RunID: "run-1234-5", Text: "a chunk of streamed text, ~80 characters long as the spec's chunks are....."}
	b.ReportAllocs()
	for b.Loop() {
		f, _ := wsRunFrame(ev)
		if _, err := json.Marshal(f); err != nil {
			b.Fatal(err)
		}
	}
}
