package protocol

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestServerFrameJSON(t *testing.T) {
	cases := []struct {
		name  string
		frame ServerFrame
		wire  string
	}{
		{"ready with empty history", ServerFrame{Type: FrameReady, SessionID: "s", Agent: "a"},
			`{"type":"ready","session_id":"s","agent":"a","history":[]}`},
		{"history list", ServerFrame{Type: FrameHistory, Messages: []WSMessage{{Role: "user", Content: "hi"}}},
			`{"type":"history","messages":[{"role":"user","content":"hi"}]}`},
		{"context counts zeros too", ServerFrame{Type: FrameContext, Window: 8192},
			`{"type":"context","used_tokens":0,"window":8192,"messages":0}`},
		{"context count", ServerFrame{Type: FrameContext, UsedTokens: 10, Window: 100, MessageCount: 3},
			`{"type":"context","used_tokens":10,"window":100,"messages":3}`},
		{"ack", ServerFrame{Type: FrameAck, ID: "m1", RunID: "r1"}, `{"type":"ack","id":"m1","run_id":"r1"}`},
		{"tool start", ServerFrame{Type: FrameToolStart, RunID: "r", Tool: "t", Args: json.RawMessage(`{"a":1}`)},
			`{"type":"tool_start","run_id":"r","tool":"t","args":{"a":1}}`},
		{"approval", ServerFrame{Type: FrameApprovalRequest, RunID: "r", Approval: &WSApproval{ID: "ap", ToolName: "shell", Args: "ls", Risk: "high", Prompt: "run?"}},
			`{"type":"approval_request","run_id":"r","approval":{"id":"ap","tool_name":"shell","args":"ls","risk":"high","prompt":"run?"}}`},
		{"final", ServerFrame{Type: FrameFinal, RunID: "r", Text: "done", Usage: &WSUsage{1, 2, 3}},
			`{"type":"final","run_id":"r","text":"done","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`},
		{"pong", ServerFrame{Type: FramePong}, `{"type":"pong"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.frame)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.wire {
				t.Errorf("encoded\n got %s\nwant %s", b, tc.wire)
			}
			var back ServerFrame
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			want := tc.frame
			if want.Type == FrameReady && want.History == nil {
				want.History = []WSMessage{}
			}
			if d := cmp.Diff(want, back); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
		})
	}
}

func TestClientFrameJSON(t *testing.T) {
	var f ClientFrame
	in := `{"type":"message","id":"m1","content":"hi","attachments":[{"mime":"image/png","data":"AAE="}]}`
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	want := ClientFrame{Type: FrameMessage, ID: "m1", Content: "hi",
		Attachments: []WSAttachment{{MIME: "image/png", Data: []byte{0, 1}}}}
	if d := cmp.Diff(want, f); d != "" {
		t.Errorf("decoded (-want +got):\n%s", d)
	}
}

// FuzzServerFrame checks that any input either fails to decode or decodes
// to a frame that encodes and decodes again to itself.
func FuzzServerFrame(f *testing.F) {
	for _, s := range []string{
		`{"type":"ready","session_id":"s","history":[{"role":"user","content":"x"}]}`,
		`{"type":"context","used_tokens":1,"window":2,"messages":3}`,
		`{"type":"history","messages":[]}`,
		`{"type":"context","messages":[1]}`,
		`{"type":"chunk","run_id":"r","text":"\u00e9"}`,
		`{"type":"tool_start","args":{"a":[1,2]}}`,
		`null`, `[]`, `{"messages":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a ServerFrame
		if json.Unmarshal(data, &a) != nil {
			return
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("re-encode %q: %v", data, err)
		}
		var c ServerFrame
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("decode own output %s: %v", b, err)
		}
		b2, _ := json.Marshal(c)
		if string(b) != string(b2) {
			t.Fatalf("not stable:\n%s\n%s", b, b2)
		}
	})
}
