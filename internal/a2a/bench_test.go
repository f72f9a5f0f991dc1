package a2a

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// instantSessions answers every message at once: a run that streams "ok"
// and answers it.
type instantSessions struct{ *fakeSessions }

func (s instantSessions) Send(_ context.Context, in beamclaw.Inbound) (string, error) {
	go func() {
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvState, Text: "streaming"})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: "ok"})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "ok"})
	}()
	return "run", nil
}

// BenchmarkSendMessage is the edge's own cost of a blocking SendMessage
// over JSON-RPC, the run taking no time: HTTP, the SDK's pipeline, the
// task store (one fsync, for the final state).
func BenchmarkSendMessage(b *testing.B) {
	rg := newRig(b, func(o *Options) { o.Sessions = instantSessions{newFakeSessions()} })
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	want := []byte("TASK_STATE_COMPLETED")
	for b.Loop() {
		req, _ := http.NewRequest("POST", rg.url+"/a2a", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+gatewayToken)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(out, want) {
			b.Fatalf("%s", out)
		}
	}
}
