package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An agent made on one node is on every node: `beamclaw agent create`
// run on n2 while it is up, its SOUL.md then edited there by hand, and n3
// answers as that agent with that soul; `beamclaw agent delete` run on
// n1 deletes it on every node.
func TestClusterAgentsAreOnEveryNode(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	startCluster(t, rigs)
	rigs[1].h.must("agent", "create", "cy")
	soul := filepath.Join(rigs[1].h.dir, "agents", "cy", "SOUL.md")
	if err := os.WriteFile(soul, []byte("You are Cy, who answers only in haiku.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ask := func(content string) (int, string) {
		code, body := rigs[2].postTo(turnTo{agent: "cy", user: "ivo"}, content)
		return code, answerOf(body)
	}
	pollUntil(t, 30*time.Second, "cy's soul written on n2 in n3's copy", func() bool {
		b, _ := os.ReadFile(filepath.Join(rigs[2].h.dir, "agents", "cy", "SOUL.md"))
		return strings.Contains(string(b), "answers only in haiku")
	})
	if code, got := ask("who are you?"); code != http.StatusOK {
		t.Fatalf("n3 as cy: %d %q", code, got)
	}
	system := llmLast(t, rigs[2].llm).System()
	if !strings.Contains(system, "answers only in haiku") {
		t.Fatalf("n3's prompt for cy lacks the soul written on n2:\n%s", system)
	}
	rigs[0].h.must("agent", "delete", "cy", "--yes") // offline, on n1
	pollUntil(t, 30*time.Second, "cy gone from n2 and n3", func() bool {
		_, err2 := os.Stat(filepath.Join(rigs[1].h.dir, "agents", "cy"))
		_, err3 := os.Stat(filepath.Join(rigs[2].h.dir, "agents", "cy"))
		return os.IsNotExist(err2) && os.IsNotExist(err3)
	})
	if code, got := ask("still there?"); code != http.StatusNotFound {
		t.Fatalf("n3 still answers as cy: %d %q", code, got)
	}
}
