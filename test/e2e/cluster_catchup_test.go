package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// A node killed with -9 catches up when it starts again: the note its
// person changed through another node meanwhile is the one it recalls,
// not the one it had, and the agent made on another node meanwhile is
// there; a workspace file edited by hand on it while it was down reaches
// the others.
func TestClusterNodeCatchesUpAfterAKill(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	startCluster(t, rigs)
	rigs[0].llm.SetDefault(fakellm.Rules)
	n3 := turnTo{session: "on-n3", user: "erin"}
	remember := `call tool workspace_memory {"action":"remember","key":"tea","content":"%s"}`
	if code, body := rigs[2].postTo(n3, strings.Replace(remember, "%s", "green, no sugar", 1)); code != http.StatusOK || !strings.Contains(answerOf(body), "remembered tea") {
		t.Fatalf("n3: %d %s", code, body)
	}
	rigs[2].kill9()

	n1 := turnTo{session: "on-n1", user: "erin"}
	// JetStream may elect new stream leaders first: meanwhile a turn can
	// get 503, or its tool can say the note could not be stored.
	pollUntil(t, 30*time.Second, "n1 changes erin's note", func() bool {
		code, body := rigs[0].postTo(n1, strings.Replace(remember, "%s", "black, strong", 1))
		if code == http.StatusOK && strings.Contains(answerOf(body), "remembered tea") {
			return true
		}
		t.Logf("n1 not yet: %d %.200s", code, body)
		return false
	})
	rigs[0].h.must("agent", "create", "dee")
	soul := filepath.Join(rigs[2].h.dir, "agents", "default", "SOUL.md") // edited by hand on n3 while it is down
	if err := os.WriteFile(soul, []byte("Edited on n3 while its daemon was down.\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	rigs[2].start()
	awaitStatus(t, rigs[2].h, "n3 back with a quorum", func(st protocol.ClusterStatus) bool { return st.Quorum && upCount(st) == 3 })
	pollUntil(t, 30*time.Second, "dee, made on n1 while n3 was down, on n3", func() bool {
		_, err := os.Stat(filepath.Join(rigs[2].h.dir, "agents", "dee", "SOUL.md"))
		return err == nil
	})
	pollUntil(t, 30*time.Second, "n3's edit made while it was down, on n1", func() bool {
		b, _ := os.ReadFile(filepath.Join(rigs[0].h.dir, "agents", "default", "SOUL.md"))
		return string(b) == "Edited on n3 while its daemon was down.\n"
	})
	recall := `call tool workspace_memory {"action":"recall","query":"black strong green sugar"}`
	var got string // the first recall that found the note: any stale one fails
	pollUntil(t, 30*time.Second, "n3 recalls erin's note", func() bool {
		code, body := rigs[2].postTo(turnTo{session: "back-on-n3", user: "erin"}, recall)
		got = answerOf(body)
		return code == http.StatusOK && strings.Contains(got, "tea:")
	})
	if !strings.Contains(got, "black, strong") || strings.Contains(got, "green") {
		t.Fatalf("n3 after its restart recalls %q; want the note changed on n1 while it was down", got)
	}
}
