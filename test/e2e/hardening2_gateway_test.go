package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestHardening2RateLimitFloodKeepsNewcomers (issue 23, item 5): a flood
// of source addresses, far more than the limiter's table holds, does not
// lock out a client that has sent nothing: every address is admitted on
// its first request, and so is a fresh client afterwards (one behind the
// trusted proxy and the proxy's own address).
func TestHardening2RateLimitFloodKeepsNewcomers(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  trusted_proxies: [127.0.0.1/32]\n" +
		"  rate_limit: {enabled: true, requests: 60, window_seconds: 3600, max_clients: 100}\n"})
	r.start()
	refused := 0
	for i := range 1000 {
		if r.limitedGet("/v1/models", fmt.Sprintf("203.0.%d.%d", i/250, i%250+1)) == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused > 0 {
		t.Errorf("%d of 1,000 addresses got 429 on their first request (table of 100)", refused)
	}
	if code := r.limitedGet("/v1/models", "198.51.100.99"); code != http.StatusOK {
		t.Errorf("a fresh client behind the proxy got %d after the flood", code)
	}
	if code := r.limitedGet("/v1/models", ""); code != http.StatusOK {
		t.Errorf("a fresh client on 127.0.0.1 got %d after the flood", code)
	}
}

// TestHardening2WriteFileRefusesHardLinks (issue 23, item 9): a hard link
// in the agent's workspace to a file outside it is refused by write_file
// and read_file, as a symbolic link out is; the outside file is intact.
func TestHardening2WriteFileRefusesHardLinks(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"}})
	r.h.must("agent", "create", "default")
	outside := filepath.Join(r.h.dir, "outside.txt")
	putFile(t, outside, "precious\n")
	if err := os.Link(outside, r.agentFile("hard.txt")); err != nil {
		t.Fatal(err)
	}
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	for i, call := range []string{
		`call tool write_file {"path":"hard.txt","content":"pwned"}`,
		`call tool write_file {"path":"hard.txt","content":"pwned","append":true}`,
		`call tool read_file {"path":"hard.txt"}`,
	} {
		before := len(r.llm.Requests())
		r.chat(fmt.Sprint("user", i), call) // a session each
		reqs := r.llm.Requests()[before:]
		res := llmToolResults(reqs[len(reqs)-1])
		if len(res) != 1 || !strings.Contains(res[0], "refusing a file with 2 hard links") {
			t.Errorf("%s: tool result %q, want a refusal naming the hard links", call, res)
		}
		if b, err := os.ReadFile(outside); err != nil || string(b) != "precious\n" {
			t.Fatalf("%s: the file outside the workspace is now %q (%v)", call, b, err)
		}
	}
}

// TestHardening2ScrubKeepsPasswdProse (issue 23, item 9): a model's answer
// that mentions passwd": in ordinary text reaches the client whole, while
// a quoted "passwd" key's value is still redacted.
func TestHardening2ScrubKeepsPasswdProse(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	secret := canarySecret(t, "pw", 20)
	prose := `search the log for passwd": then read on`
	r.llm.Script(fakellm.Reply{Text: prose + ` and the file has {"passwd": "` + secret + `"}`})
	r.start()
	answer := r.chat("ana", "what is in the log?")
	if !strings.Contains(answer, prose) {
		t.Errorf("the prose was changed: %q", answer)
	}
	if strings.Contains(answer, secret) || !strings.Contains(answer, `{"passwd": "[REDACTED]"}`) {
		t.Errorf("the quoted passwd value was not redacted: %q", answer)
	}
}
