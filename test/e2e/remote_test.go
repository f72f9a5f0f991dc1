package e2e

import (
	"strings"
	"testing"

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
