package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// A node joins a running cluster and another leaves it, under load
// through the others, and no client of theirs sees an error: the new
// node, named in no other node's config, answers a conversation begun
// elsewhere with its history; the leaving node (beamclaw stop), which
// owns the conversations of the load and is running their turns, ends
// those turns and hands the conversations on before it goes, and they
// answer from the others with every answered message in them once.
func TestClusterNodeJoinsAndLeaves(t *testing.T) {
	rigs := clusterNodes(t, 4, 3)
	joiner, leaver := rigs[3], rigs[2]
	route := regexp.MustCompile(`, "nats-route://127\.0\.0\.1:\d+"\]`) // the last route: n4's
	for _, r := range rigs[:3] {
		path := filepath.Join(r.h.dir, "config.yaml")
		cfg, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, route.ReplaceAll(cfg, []byte("]")), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	startCluster(t, rigs[:3])
	if code, body := rigs[0].post("joiner", "before the join"); code != http.StatusOK {
		t.Fatalf("before the join: %d %s", code, body)
	}
	const users = 4        // each one message every 700 ms: the gateway allows 60 a minute from one address
	for u := range users { // n3 owns their conversations: the load through n1 and n2 is forwarded to it
		if code, body := leaver.post(fmt.Sprintf("stay%d", u), "hello"); code != http.StatusOK {
			t.Fatalf("hello: %d %s", code, body)
		}
	}
	// Each answer takes a second: turns are running on n3 when it leaves.
	leaver.llm.SetDefault(func(req fakellm.Request) fakellm.Reply {
		return fakellm.Reply{Chunks: []string{"echo: ", req.LastUser()}, ChunkDelay: 500 * time.Millisecond}
	})
	var failed atomic.Int64
	var mu sync.Mutex
	acked := map[string][]string{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for u := range users {
		wg.Go(func() {
			user := fmt.Sprintf("stay%d", u)
			for m := 0; ; m++ {
				select {
				case <-stop:
					return
				case <-time.After(700 * time.Millisecond):
				}
				msg := fmt.Sprintf("%s-m%d", user, m)
				code, body := tryPost(rigs[(u+m)%2], user, msg) // through n1 and n2: they stay
				if code != http.StatusOK || !strings.Contains(body, "echo: "+msg) {
					failed.Add(1)
					t.Logf("%s: %d %.200s", msg, code, body)
					continue
				}
				mu.Lock()
				acked[user] = append(acked[user], msg)
				mu.Unlock()
			}
		})
	}
	time.Sleep(2 * time.Second) // the load spreads over the three nodes
	joiner.start()
	awaitStatus(t, rigs[0].h, "four nodes with a quorum", func(st protocol.ClusterStatus) bool { return st.Quorum && upCount(st) == 4 })
	code, body := joiner.post("joiner", "after the join")
	if code != http.StatusOK || !strings.Contains(strings.Join(conversationEndingWith(t, joiner, "after the join"), "|"), "user: before the join") {
		t.Fatalf("the new node's answer: %d %s", code, body)
	}
	time.Sleep(time.Second)
	left := time.Now()
	leaver.h.must("stop")
	t.Logf("n3 left in %s", time.Since(left).Round(time.Millisecond))
	time.Sleep(3 * time.Second) // the load goes on without n3
	close(stop)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d requests through the nodes that stayed failed while n4 joined and n3 left", n)
	}
	total := 0
	for u := range users {
		user := fmt.Sprintf("stay%d", u)
		if code, body := joiner.post(user, user+"-last"); code != http.StatusOK {
			t.Fatalf("%s after the leave: %d %s", user, code, body)
		}
		seen := map[string]int{}
		for _, line := range conversationEndingWith(t, joiner, user+"-last") {
			seen[line]++
		}
		for _, msg := range acked[user] {
			if seen["user: "+msg] != 1 || seen["assistant: echo: "+msg] != 1 {
				t.Errorf("%s: the answered %q is not in the conversation once with its answer", user, msg)
			}
		}
		total += len(acked[user])
	}
	t.Logf("%d messages answered while n4 joined and n3 left, none failed", total)
}

// conversationEndingWith is the conversation of the newest model request
// whose last user message is msg (other users' turns run meanwhile).
func conversationEndingWith(t *testing.T, r *chatRig, msg string) []string {
	t.Helper()
	reqs := r.llm.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		conv := llmConversation(reqs[i])
		if n := len(conv); n > 0 && conv[n-1] == "user: "+msg {
			return conv
		}
	}
	t.Fatalf("no model request ends with %q", msg)
	return nil
}
