package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// listing is n bytes of `yes LINE | head -c n`.
func listing(n int) string {
	const line = "abcdefghijklmnopqrstuvwxyz0123456789\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// TestLargeToolOutputIsPaged (issue 28): a bash call printing 1 MiB, a
// token in its middle, reaches the model as a view within
// tools.page_bytes that names the output; after a kill -9, tool_output
// reads a later page of it exactly; the session's export (with the
// daemon or without) and its user's hold it whole, the token scrubbed.
func TestLargeToolOutputIsPaged(t *testing.T) {
	const page = 8192
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"ws": "full"},
		extra: fmt.Sprintf("tools:\n  page_bytes: %d\n", page)})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	allow := func(protocol.WSApproval) string { return protocol.DecisionAllow }
	secret := canarySecret(t, "ghp_", 36)
	token := "token " + secret + "\n"
	half := 1 << 19
	// The token is spelled backwards in the message: the user's own words are
	// not scrubbed, what the tool printed is.
	script := fmt.Sprintf("yes abcdefghijklmnopqrstuvwxyz0123456789 | head -c %d; printf 'token ghp_%%s\\n' $(echo %s | rev); "+
		"yes abcdefghijklmnopqrstuvwxyz0123456789 | head -c %d", half, reverse(strings.TrimPrefix(secret, "ghp_")), half-len(token))
	args, _ := json.Marshal(map[string]string{"script": script})
	sendRun(t, r.dial("ana"), "call tool bash "+string(args), allow)
	whole := listing(half) + "token [REDACTED]\n" + listing(half-len(token)) + "\n[exit code: 0]"

	res := llmToolResults(llmLast(t, r.llm))
	view := res[len(res)-1]
	m := regexp.MustCompile(`(?s)^(.*)\n\[\.\.\. (\d+) bytes \(\d+ lines\) left out: bytes (\d+)–(\d+) of (\d+)\. The whole output is kept: ` +
		`call tool_output with \{"id":"(out-\d+)","offset":(\d+)\} to read on \.\.\.\]\n(.*)$`).FindStringSubmatch(view)
	if m == nil {
		t.Fatalf("the model got %d bytes, not a view: %.300q", len(view), view)
	}
	head, tail, handle := m[1]+"\n", m[8], m[6]
	if len(head)+len(tail) > page || !strings.HasPrefix(whole, head) || !strings.HasSuffix(whole, tail) ||
		m[5] != fmt.Sprint(len(whole)) || strings.Contains(view, secret) {
		t.Errorf("the view shows %d+%d bytes of %s, page %d", len(head), len(tail), m[5], page)
	}
	t.Logf("bash printed %d bytes (kept: %d, scrubbed, with its exit line); the model got %d (head %d, tail %d, the note %d)",
		2*half, len(whole), len(view), len(head), len(tail), len(view)-len(head)-len(tail))

	r.kill9()
	r.start()
	const at, n = 600000, 4000
	sendRun(t, r.dial("ana"), fmt.Sprintf(`call tool tool_output {"id":%q,"offset":%d,"limit":%d}`, handle, at, n), allow)
	res = llmToolResults(llmLast(t, r.llm))
	want := fmt.Sprintf("[bytes %d–%d of %d; the next page starts at offset %d]\n", at, at+n, len(whole), at+n) + whole[at:at+n]
	if got := res[len(res)-1]; got != want {
		t.Errorf("tool_output after a kill -9 gave %.200q, want %.200q", got, want)
	}

	var list protocol.SessionList
	if err := json.Unmarshal([]byte(r.h.must("sessions", "list", "--json").stdout), &list); err != nil || len(list.Sessions) != 1 {
		t.Fatalf("sessions: %v %+v", err, list)
	}
	out := r.h.must("sessions", "export", list.Sessions[0].ID).stdout
	var d protocol.SessionDetail
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Outputs) != 1 {
		t.Fatalf("export: %v, %d outputs", err, len(d.Outputs))
	}
	if o := d.Outputs[0]; o.ID != handle || o.Tool != "bash" || o.Content != whole || strings.Contains(out, secret) {
		t.Errorf("the export's output %s of %s: %d bytes, the whole %d, the token in the export: %v", o.ID, o.Tool,
			len(o.Content), len(whole), strings.Contains(out, secret))
	}
	var ex protocol.UserExport
	if err := json.Unmarshal([]byte(r.h.must("users", "export", list.Sessions[0].User).stdout), &ex); err != nil ||
		len(ex.Sessions) != 1 || len(ex.Sessions[0].Outputs) != 1 || ex.Sessions[0].Outputs[0].Content != whole {
		t.Errorf("users export does not hold the output whole (%v)", err)
	}
	r.h.must("stop") // without a daemon, the CLI reads the store itself
	var offline protocol.SessionDetail
	if err := json.Unmarshal([]byte(r.h.must("sessions", "export", list.Sessions[0].ID).stdout), &offline); err != nil ||
		len(offline.Outputs) != 1 || offline.Outputs[0].Content != whole || offline.Outputs[0].ToolCallID != d.Outputs[0].ToolCallID {
		t.Errorf("the export without a daemon does not hold the output whole (%v)", err)
	}
}
