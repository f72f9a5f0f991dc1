package gateway

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gorilla/websocket"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func wsChatScript(in beamclaw.Inbound, runID string) []beamclaw.RunEvent {
	return []beamclaw.RunEvent{
		{Type: beamclaw.EvState, RunID: runID, Text: "streaming"},
		{Type: beamclaw.EvChunk, RunID: runID, Text: "Hel"},
		{Type: beamclaw.EvToolStart, RunID: runID, Tool: &beamclaw.ToolCall{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)}},
		{Type: beamclaw.EvToolResult, RunID: runID, Result: &beamclaw.ToolResult{ToolCallID: "c1", Name: "read_file", Content: "data"}},
		{Type: beamclaw.EvChunk, RunID: runID, Text: "lo"},
		{Type: beamclaw.EvFinal, RunID: runID, Text: "Hello " + in.Content, Usage: &beamclaw.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}},
	}
}

func TestWSHelloReadyWithHistory(t *testing.T) {
	fake := newWSFake()
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fake.history["session-ws:alice-default"] = []beamclaw.Message{
		{Role: beamclaw.RoleUser, Content: "hi", Time: ts},
		{Role: beamclaw.RoleAssistant, Content: "hello", ToolCalls: []beamclaw.ToolCall{{ID: "c", Name: "t", Args: json.RawMessage(`{broken`)}}},
	}
	env := startWS(t, fake, WSOptions{}, Options{})
	c := env.dial(t, nil)
	got := env.hello(t, c, protocol.ClientFrame{Agent: "default", User: "alice", Protocol: 1})
	want := protocol.ServerFrame{Type: protocol.FrameReady, SessionID: "session-ws:alice-default", Agent: "default",
		History: []protocol.WSMessage{
			{Role: "user", Content: "hi", Time: ts},
			{Role: "assistant", Content: "hello", ToolCalls: []protocol.WSToolCall{{ID: "c", Name: "t", Args: json.RawMessage(`"{broken"`)}}},
		}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ready (-want +got):\n%s", d)
	}
	// A new session has an empty, present history.
	c2 := env.dial(t, nil)
	got = env.hello(t, c2, protocol.ClientFrame{Agent: "other", User: "bob"})
	if got.History == nil || len(got.History) != 0 || got.SessionID != "session-ws:bob-other" {
		t.Errorf("new session ready = %+v", got)
	}
}

func TestWSMessageStreamsAckChunksFinal(t *testing.T) {
	fake := newWSFake()
	fake.script = wsChatScript
	env := startWS(t, fake, WSOptions{Autonomy: beamclaw.Supervised}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default", User: "alice"})
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, ID: "m1", Content: "world"})
	var got []protocol.ServerFrame
	for len(got) == 0 || got[len(got)-1].Type != protocol.FrameFinal {
		got = append(got, wsRead(t, c))
	}
	want := []protocol.ServerFrame{
		{Type: "ack", ID: "m1", RunID: "run-1"},
		{Type: "chunk", RunID: "run-1", Text: "Hel"},
		{Type: "tool_start", RunID: "run-1", Tool: "read_file", ToolCallID: "c1", Args: json.RawMessage(`{"path":"a.txt"}`)},
		{Type: "tool_result", RunID: "run-1", Tool: "read_file", ToolCallID: "c1", Result: "data"},
		{Type: "chunk", RunID: "run-1", Text: "lo"},
		{Type: "final", RunID: "run-1", Text: "Hello world", Usage: &protocol.WSUsage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("frames (-want +got):\n%s", d)
	}
	sent, _, _ := fake.snapshot()
	wantIn := []beamclaw.Inbound{{Channel: "ws", UserID: "ws:alice", AgentID: "default", MessageID: "m1",
		Content: "world", Autonomy: beamclaw.Supervised}}
	if d := cmp.Diff(wantIn, sent, cmpopts.IgnoreFields(beamclaw.Inbound{}, "Route", "Origin", "MessageDigest")); d != "" {
		t.Errorf("inbound (-want +got):\n%s", d)
	}
	if len(sent) == 1 && sent[0].MessageDigest == "" {
		t.Error("a message with an id was sent without its digest")
	}
	if len(sent) == 1 && !strings.HasPrefix(sent[0].Origin, "ws:") {
		t.Errorf("origin %q, want the connection's", sent[0].Origin)
	}
}

func TestWSDuplicateMessageIDIsNotRunAgain(t *testing.T) {
	fake := newWSFake()
	env := startWS(t, fake, WSOptions{}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default", User: "alice"})
	for range 2 {
		wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, ID: "m1", Content: "once"})
		if f := wsRead(t, c); f.Type != "ack" || f.RunID != "run-1" || f.ID != "m1" {
			t.Fatalf("ack = %+v", f)
		}
	}
	// A reconnecting client resends: the session layer spots it and the
	// earlier run is acked.
	c2 := env.dial(t, nil)
	env.hello(t, c2, protocol.ClientFrame{Agent: "default", User: "alice"})
	wsWrite(t, c2, protocol.ClientFrame{Type: protocol.FrameMessage, ID: "m1", Content: "once"})
	if f := wsRead(t, c2); f.Type != "ack" || f.RunID != "run-1" {
		t.Fatalf("ack after reconnect = %+v", f)
	}
	if sent, _, _ := fake.snapshot(); len(sent) != 1 {
		t.Errorf("Send reached the session %d times, want 1", len(sent))
	}
}

func TestWSApproveCallsDecide(t *testing.T) {
	fake := newWSFake()
	env := startWS(t, fake, WSOptions{}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default", User: "alice"})
	for _, d := range []string{"allow", "always", "deny", "ALWAYS"} {
		wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameApprove, ApprovalID: "ap-" + d, Decision: d})
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameApprove, ApprovalID: "ap-x", Decision: "maybe"})
	if f := wsRead(t, c); f.Type != "error" || f.Code != protocol.CodeBadFrame {
		t.Errorf("bad decision answered %+v", f)
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameApprove, ApprovalID: "missing", Decision: "allow"})
	if f := wsRead(t, c); f.Type != "error" || f.Code != protocol.CodeNotFound || f.Message != "no such approval" {
		t.Errorf("unknown approval answered %+v", f)
	}
	_, got, _ := fake.snapshot()
	sid := "session-ws:alice-default"
	want := []wsDecision{{sid, "ap-allow", beamclaw.Allow}, {sid, "ap-always", beamclaw.Always},
		{sid, "ap-deny", beamclaw.Deny}, {sid, "ap-ALWAYS", beamclaw.Always}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("decisions (-want +got):\n%s", d)
	}
}

func TestWSResetHistoryContextPing(t *testing.T) {
	fake := newWSFake()
	sid := "session-ws:alice-default"
	fake.history[sid] = []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "x"}}
	env := startWS(t, fake, WSOptions{}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default", User: "alice"})
	steps := []struct {
		send protocol.ClientFrame
		want protocol.ServerFrame
	}{
		{protocol.ClientFrame{Type: "context"}, protocol.ServerFrame{Type: "context", SessionID: sid, UsedTokens: 1234, Window: 8192, MessageCount: 1}},
		{protocol.ClientFrame{Type: "history"}, protocol.ServerFrame{Type: "history", SessionID: sid, Messages: []protocol.WSMessage{{Role: "user", Content: "x"}}}},
		{protocol.ClientFrame{Type: "reset"}, protocol.ServerFrame{Type: "reset_done", SessionID: sid}},
		{protocol.ClientFrame{Type: "history"}, protocol.ServerFrame{Type: "history", SessionID: sid, Messages: []protocol.WSMessage{}}},
		{protocol.ClientFrame{Type: "ping"}, protocol.ServerFrame{Type: "pong"}},
	}
	for _, s := range steps {
		wsWrite(t, c, s.send)
		if d := cmp.Diff(s.want, wsRead(t, c)); d != "" {
			t.Errorf("%s (-want +got):\n%s", s.send.Type, d)
		}
	}
	if _, _, resets := fake.snapshot(); !cmp.Equal(resets, []string{sid}) {
		t.Errorf("resets = %v", resets)
	}
}

func TestWSOriginExactMatch(t *testing.T) {
	env := startWS(t, newWSFake(), WSOptions{AllowedOrigins: []string{"http://localhost:3000"}}, Options{})
	own := strings.SplitN(strings.TrimPrefix(env.url, "ws://"), "/", 2)[0] // the listener's host:port
	cases := []struct {
		name, origin string
		want         int
	}{
		{"no origin (non-browser)", "", http.StatusSwitchingProtocols},
		{"listed origin", "http://localhost:3000", http.StatusSwitchingProtocols},
		{"longer port", "http://localhost:30001", http.StatusForbidden},
		{"suffix domain", "http://localhost:3000.evil.com", http.StatusForbidden},
		{"other scheme", "https://localhost:3000", http.StatusForbidden},
		{"case differs", "http://LOCALHOST:3000", http.StatusForbidden},
		{"trailing slash", "http://localhost:3000/", http.StatusForbidden},
		{"prefix only", "http://localhost:300", http.StatusForbidden},
		{"the listener's own page", "http://" + own, http.StatusSwitchingProtocols},
		{"own host, other scheme", "https://" + own, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.origin != "" {
				h.Set("Origin", tc.origin)
			}
			c, resp, err := websocket.DefaultDialer.Dial(env.url, h)
			if c != nil {
				c.Close()
			}
			if resp == nil {
				t.Fatalf("no response: %v", err)
			}
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

func TestWSBearerTokenAndPlainGET(t *testing.T) {
	token := strings.Repeat("t", 40)
	env := startWS(t, newWSFake(), WSOptions{}, Options{Token: token})
	_, resp, err := websocket.DefaultDialer.Dial(env.url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: err=%v resp=%v", err, resp)
	}
	c := env.dial(t, http.Header{"Authorization": {"Bearer " + token}})
	env.hello(t, c, protocol.ClientFrame{Agent: "default"})
	req, _ := http.NewRequest("GET", "http"+strings.TrimPrefix(env.url, "ws"), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	plain, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	plain.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	if plain.StatusCode != http.StatusBadRequest {
		t.Errorf("plain GET /ws: %d, want 400", plain.StatusCode)
	}
}

func TestWSSessionsAndResume(t *testing.T) {
	fake := newWSFake()
	def, other := "session-ws:alice-default", "session-ws:alice-default-thread2"
	fake.history[def] = []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "today"}}
	fake.history[other] = []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "last week"}}
	fake.history["session-ws:bob-default"] = []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "not yours"}}
	env := startWS(t, fake, WSOptions{}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default", User: "alice"})

	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameSessions})
	got := wsRead(t, c)
	if got.Type != protocol.FrameSessions || len(got.Sessions) != 2 {
		t.Fatalf("sessions frame %+v", got)
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameResume, Session: "ws:bob"})
	if got := wsRead(t, c); got.Type != protocol.FrameError || got.Code != protocol.CodeNotFound {
		t.Errorf("resume of another user's session: %+v", got)
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameResume, Session: other})
	got = wsRead(t, c)
	if got.Type != protocol.FrameReady || got.SessionID != other || len(got.History) != 1 || got.History[0].Content != "last week" {
		t.Fatalf("resume: %+v", got)
	}
	// Messages now go to the resumed session, named explicitly.
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, ID: "m1", Content: "and now?"})
	if f := wsRead(t, c); f.Type != protocol.FrameAck {
		t.Fatalf("message after resume: %+v", f)
	}
	sent, _, _ := fake.snapshot()
	if last := sent[len(sent)-1]; last.Session != other {
		t.Errorf("message after resume went to %q, want %q", last.Session, other)
	}
}

// A frame that does not decode gets a bad_frame error saying what is
// wrong with it: an attachment's data that is not base64 is not "not a
// JSON object" (issue 23, item 9). The connection stays open.
func TestWSBadFrameSaysWhatIsWrong(t *testing.T) {
	env := startWS(t, newWSFake(), WSOptions{}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default", User: "alice"})
	cases := []struct{ frame, want string }{
		{`{"type":"message","id":"m1","attachments":[{"mime":"image/png","data":"!!not base64"}]}`, "attachments[].data is not valid standard base64 (at byte 0)"},
		{`{"type":"message","id":"m1","attachments":[{"mime":"image/png","data":5}]}`, "attachments[].data must be a base64 string, not a number"},
		{`{"type":5}`, "type must be a string, not a number"},
		{`[1,2]`, "not a JSON object (an array)"},
		{`not json`, "not a JSON object"},
	}
	for _, tc := range cases {
		if err := c.WriteMessage(websocket.TextMessage, []byte(tc.frame)); err != nil {
			t.Fatal(err)
		}
		f := wsRead(t, c)
		if f.Type != "error" || f.Code != protocol.CodeBadFrame || f.Message != "malformed frame: "+tc.want {
			t.Errorf("%s answered %+v, want %q", tc.frame, f, tc.want)
		}
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FramePing})
	if f := wsRead(t, c); f.Type != protocol.FramePong {
		t.Errorf("after the bad frames: %+v, want pong", f)
	}
}
