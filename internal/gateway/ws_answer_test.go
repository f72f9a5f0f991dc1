package gateway

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// TestWSElicitationFrameAndAnswer: a question a tool asks reaches the
// client as an elicitation frame; an answer frame for it goes to the
// session layer with the connection's user; an answer for a question not
// asked on this connection is refused.
func TestWSElicitationFrameAndAnswer(t *testing.T) {
	fake := newWSFake()
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","default":"Paris"}}}`)
	fake.script = func(_ beamclaw.Inbound, runID string) []beamclaw.RunEvent {
		return []beamclaw.RunEvent{{Type: beamclaw.EvElicitation, RunID: runID,
			Elicit: &beamclaw.Elicitation{ID: "el-1", Source: "mcp:weather", Tool: "weather__forecast", Message: "Which city?", Schema: schema}}}
	}
	env := startWS(t, fake, WSOptions{}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default", User: "alice"})
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameAnswer, ElicitationID: "el-1", Action: "accept"})
	if f := wsRead(t, c); f.Type != "error" || f.Code != protocol.CodeNotFound {
		t.Errorf("an answer before the question answered %+v", f)
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, ID: "m", Content: "weather?"})
	wsRead(t, c) // ack
	f := wsRead(t, c)
	want := &protocol.WSElicitation{ID: "el-1", Source: "mcp:weather", Tool: "weather__forecast", Message: "Which city?", Schema: schema}
	if f.Type != protocol.FrameElicitation || !cmp.Equal(want, f.Elicitation) {
		t.Fatalf("elicitation frame = %+v", f)
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameAnswer, ElicitationID: "el-1", Action: "maybe"})
	if f := wsRead(t, c); f.Type != "error" || f.Code != protocol.CodeBadFrame {
		t.Errorf("a bad action answered %+v", f)
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameAnswer, ElicitationID: "el-1", Action: "accept",
		Fields: map[string]any{"city": "Oslo"}})
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameAnswer, ElicitationID: "el-1", Action: "decline"})
	if f := wsRead(t, c); f.Type != "error" || f.Code != protocol.CodeNotFound {
		t.Errorf("a second answer answered %+v", f)
	}
	fake.mu.Lock()
	got := append([]wsAnswer(nil), fake.answers...)
	fake.mu.Unlock()
	wantA := []wsAnswer{{"ws:alice", "el-1", beamclaw.ElicitAnswer{Action: "accept", Content: map[string]any{"city": "Oslo"}}}}
	if d := cmp.Diff(wantA, got, cmp.AllowUnexported(wsAnswer{})); d != "" {
		t.Errorf("answers (-want +got):\n%s", d)
	}
}
