package e2e

import (
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestHTTPAtFullSaysWhatWouldAllowIt: the OpenAI-compatible API cannot
// ask for approval, so a high-risk tool is refused there even at full
// autonomy, and the refusal names what would allow it instead of asking
// to raise an autonomy that is already full.
func TestHTTPAtFullSaysWhatWouldAllowIt(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.chat("ana", bashCall("echo should-not-run"))
	res := llmToolResults(llmLast(t, r.llm))
	if len(res) != 1 || strings.Contains(res[0], "should-not-run") {
		t.Fatalf("bash ran over HTTP without approval: %q", res)
	}
	if !strings.Contains(res[0], "run it from a channel that can") || strings.Contains(res[0], "raise") {
		t.Errorf("the refusal does not say what would allow it: %q", res[0])
	}
}

// TestApprovalOnlyWhereAsked: with one user on /ws and HTTP (the same
// session through BEAMCLAW_USER), a bash call waiting for approval on the
// WebSocket is not approved by "/yes" over HTTP (told nothing waits
// there); the WebSocket's own answer runs it.
func TestApprovalOnlyWhereAsked(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "supervised", channels: map[string]string{"ws": "supervised", "http": "supervised"}})
	r.h.env = append(r.h.env, "BEAMCLAW_USER=owner")
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	conn := r.dial("ana")
	asked := make(chan struct{})
	answered := make(chan string, 1)
	done := make(chan wsRun, 1)
	go func() {
		done <- sendRun(t, conn, bashCall("echo cross-$((40+2))"), func(protocol.WSApproval) string {
			close(asked)
			return <-answered
		})
	}()
	<-asked
	if got := r.chat("owner", "/yes"); !strings.Contains(got, "Nothing is waiting for your approval here") {
		t.Errorf("/yes over HTTP answered %q", got)
	}
	for _, req := range r.llm.Requests() {
		for _, res := range llmToolResults(req) {
			if strings.Contains(res, "cross-42") {
				t.Fatal("the command ran on an HTTP /yes")
			}
		}
	}
	answered <- protocol.DecisionAllow
	if got := (<-done).finalText(t); !strings.Contains(got, "cross-42") {
		t.Errorf("after the WebSocket's own approval: %q", got)
	}
}
