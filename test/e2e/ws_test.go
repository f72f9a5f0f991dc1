package e2e

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestWSTwoChannelsOneUser: with BEAMCLAW_USER set, a message over HTTP
// and one over WebSocket land in one session, and each answer goes back
// to the channel its message came from.
func TestWSTwoChannelsOneUser(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.h.env = append(r.h.env, "BEAMCLAW_USER=ana")
	r.start()
	conn := r.dial("someone-else") // connected before the HTTP turn: it must not see that turn's answer

	if got := r.chat("x", "from http: hello"); got != "echo: from http: hello" {
		t.Errorf("HTTP answer %q", got)
	}
	run := sendRun(t, conn, "from ws: hi", nil)
	if got := run.finalText(t); got != "echo: from ws: hi" {
		t.Errorf("WS final %q", got)
	}
	for _, f := range run.stray {
		if strings.Contains(f.Text, "from http") {
			t.Errorf("the HTTP turn's answer reached the WebSocket: %+v", f)
		}
	}
	want := []string{"user: from http: hello", "assistant: echo: from http: hello", "user: from ws: hi"}
	if diff := cmp.Diff(want, llmConversation(llmLast(t, r.llm))); diff != "" {
		t.Errorf("the WS turn's provider request lacks the HTTP turn (-want +got):\n%s", diff)
	}
	// A new connection of another nominal user sees the same session.
	ready := r.dial("third").Ready()
	var hist []string
	for _, m := range ready.History {
		hist = append(hist, m.Role+": "+m.Content)
	}
	want = append(want, "assistant: echo: from ws: hi")
	if diff := cmp.Diff(want, hist); diff != "" {
		t.Errorf("ready history (-want +got):\n%s", diff)
	}
}

// bashCall is user text the Rules responder turns into a bash tool call.
func bashCall(script string) string {
	return `call tool bash {"script":"` + script + `"}`
}

// TestWSApprovalReadOnly: at read_only a tool that needs approval is
// denied without asking.
func TestWSApprovalReadOnly(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "read_only", channels: map[string]string{"ws": "read_only"}})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	conn := r.dial("ana")
	run := sendRun(t, conn, bashCall("echo ro-$((40+2))"), nil) // an approval_request fails the test
	run.finalText(t)
	results := llmToolResults(llmLast(t, r.llm))
	if len(results) != 1 {
		t.Fatalf("tool results sent back: %q", results)
	}
	if strings.Contains(results[0], "ro-42") || !strings.Contains(results[0], "denied") {
		t.Errorf("bash at read_only: tool result %q, want a denial", results[0])
	}
}

// TestWSApprovalSupervisedAlways: supervised asks; "always" lets the same
// call run again without asking, while a different script asks again.
func TestWSApprovalSupervisedAlways(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "supervised", channels: map[string]string{"ws": "supervised"}})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	conn := r.dial("ana")
	var asked []protocol.WSApproval
	answer := func(decision string) func(protocol.WSApproval) string {
		return func(a protocol.WSApproval) string {
			asked = append(asked, a)
			return decision
		}
	}

	run := sendRun(t, conn, bashCall("echo sup-$((40+2))"), answer(protocol.DecisionAlways))
	if run.approvals != 1 || len(asked) != 1 || asked[0].ToolName != "bash" {
		t.Fatalf("first call: %d approval requests %+v, want one for bash", run.approvals, asked)
	}
	if res := llmToolResults(llmLast(t, r.llm)); len(res) != 1 || !strings.Contains(res[0], "sup-42") {
		t.Fatalf("approved bash output did not reach the provider: %q", res)
	}
	if got := run.finalText(t); !strings.Contains(got, "sup-42") {
		t.Errorf("final %q lacks the output", got)
	}

	run = sendRun(t, conn, bashCall("echo sup-$((40+2))"), answer(protocol.DecisionDeny))
	if run.approvals != 0 {
		t.Errorf("the same call after always asked again (%d requests)", run.approvals)
	}
	if got := run.finalText(t); !strings.Contains(got, "sup-42") {
		t.Errorf("the same call after always: final %q", got)
	}

	run = sendRun(t, conn, bashCall("echo other-$((1+1))"), answer(protocol.DecisionAllow))
	if run.approvals != 1 {
		t.Errorf("a different script: %d approval requests, want 1", run.approvals)
	}
	if got := run.finalText(t); !strings.Contains(got, "other-2") {
		t.Errorf("a different script allowed once: final %q", got)
	}
}

// TestWSApprovalFull: TCP /ws is a remote channel, so even at full
// autonomy a high-risk tool (bash) is asked for; approved, it runs.
func TestWSApprovalFull(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"ws": "full"}})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	conn := r.dial("ana")
	var asked []protocol.WSApproval
	run := sendRun(t, conn, bashCall("echo full-$((40+2))"), func(a protocol.WSApproval) string {
		asked = append(asked, a)
		return protocol.DecisionAllow
	})
	if len(asked) != 1 || asked[0].ToolName != "bash" {
		t.Fatalf("approval requests %+v, want one for bash (TCP /ws is remote)", asked)
	}
	if got := run.finalText(t); !strings.Contains(got, "full-42") {
		t.Errorf("final %q lacks the bash output", got)
	}
	var started, finished bool
	for _, f := range run.frames {
		started = started || (f.Type == protocol.FrameToolStart && f.Tool == "bash")
		finished = finished || (f.Type == protocol.FrameToolResult && strings.Contains(f.Result, "full-42"))
	}
	if !started || !finished {
		t.Errorf("tool frames: start %v result %v: %+v", started, finished, run.frames)
	}
}
