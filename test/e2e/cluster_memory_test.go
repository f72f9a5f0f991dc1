package e2e

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// A person's memory written through one node is on every node: the note
// erin's agent appends on n1 is in n3's copy of her memory, and the
// conversation n3 runs for her (another agent session) has it in its
// prompt; the key-value note she has it remember on n1 is the one n3
// recalls.
func TestClusterPersonsMemoryIsOnEveryNode(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	startCluster(t, rigs)
	rigs[0].llm.SetDefault(fakellm.Rules)
	rigs[0].chat("erin", `call tool workspace_memory {"action":"remember","key":"tea","content":"green, no sugar"}`)
	rigs[0].chat("erin", `call tool workspace_memory {"action":"append","content":"Erin collects zebu figurines"}`)
	holds := func(dir string) bool {
		found := false
		_ = filepath.WalkDir(filepath.Join(dir, "people"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), "zebu figurines") {
					found = true
				}
			}
			return nil
		})
		return found
	}
	pollUntil(t, 30*time.Second, "erin's note in n3's copy of her memory", func() bool { return holds(rigs[2].h.dir) })
	// A named session of erin's is new: n3, which gets its first message,
	// runs it with its own copy of her memory.
	elsewhere := func(content string) string {
		t.Helper()
		code, body := rigs[2].postTo(turnTo{session: "elsewhere", user: "erin"}, content)
		if code != http.StatusOK {
			t.Fatalf("n3: status %d: %s", code, body)
		}
		return answerOf(body)
	}
	elsewhere("what do you know of me?")
	system := llmLast(t, rigs[2].llm).System()
	if !strings.Contains(system, "zebu figurines") {
		t.Fatalf("n3's prompt for erin lacks her note:\n%s", system)
	}
	recall := `call tool workspace_memory {"action":"recall","query":"tea sugar"}`
	if got := elsewhere(recall); !strings.Contains(got, "tea: green, no sugar") {
		t.Fatalf("n3 recalls for erin %q; want the note she had n1 remember", got)
	}
}
