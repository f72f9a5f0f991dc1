package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Load through all three nodes, and one of them killed with -9 in the
// middle of it: every message a client got an answer for is in its
// conversation afterwards, exactly once, and no message or answer is in
// it twice; the conversations the dead node owned answer again from the
// others.
func TestClusterLoadSurvivesAKill(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	victim := quietNode(startCluster(t, rigs))
	const users, turns = 9, 8
	var mu sync.Mutex
	acked := map[string][]string{} // user -> messages answered 200
	var wg sync.WaitGroup
	killAt := make(chan struct{})
	var once sync.Once
	var dead sync.Map // *chatRig -> true once killed
	pick := func(i int) *chatRig {
		for k := range 3 {
			if r := rigs[(i+k)%3]; func() bool { _, d := dead.Load(r); return !d }() {
				return r
			}
		}
		return rigs[i%3]
	}
	for u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("load%d", u)
			for m := range turns {
				if u == 0 && m == turns/2 {
					once.Do(func() { close(killAt) })
				}
				msg := fmt.Sprintf("%s-m%d", user, m)
				code, body := tryPost(pick(u+m), user, msg)
				if code == http.StatusOK && strings.Contains(body, "echo: "+msg) {
					mu.Lock()
					acked[user] = append(acked[user], msg)
					mu.Unlock()
				}
			}
		}()
	}
	<-killAt
	dead.Store(rigs[victim], true)
	rigs[victim].kill9()
	wg.Wait()
	total := 0
	for u := range users {
		user := fmt.Sprintf("load%d", u)
		live := rigs[(victim+1)%3]
		var conv []string
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			if code, _ := live.post(user, user+"-last"); code == http.StatusOK {
				conv = llmConversation(llmLast(t, live.llm))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no answer after the kill", user)
			}
		}
		seen := map[string]int{}
		for _, line := range conv {
			seen[line]++
			if seen[line] > 1 {
				t.Errorf("%s: %q is in the conversation %d times", user, line, seen[line])
			}
		}
		for _, msg := range acked[user] {
			if seen["user: "+msg] != 1 || seen["assistant: echo: "+msg] != 1 {
				t.Errorf("%s: the answered %q is not in the conversation once with its answer: %q", user, msg, conv)
			}
		}
		total += len(acked[user])
	}
	t.Logf("%d of %d messages answered through the kill of n%d", total, users*turns, victim+1)
}

// tryPost is post without failing the test: a node may die under it
// (status 0 then).
func tryPost(r *chatRig, user, content string) (int, string) {
	return tryPostCapped(r, user, content, 0)
}

// tryPostCapped is tryPost with the request's max_tokens (0: none).
func tryPostCapped(r *chatRig, user, content string, maxTokens int) (int, string) {
	req := map[string]any{"model": "default", "user": user,
		"messages": []map[string]string{{"role": "user", "content": content}}}
	if maxTokens > 0 {
		req["max_tokens"] = maxTokens
	}
	body, _ := json.Marshal(req)
	resp, err := r.hc.Post("http://"+r.addr+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The whole cluster stopped and started again keeps its conversations:
// they live in JetStream's files under each node's home.
func TestClusterRestartKeepsConversations(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	startCluster(t, rigs)
	for i, word := range []string{"one", "two"} {
		if got := rigs[i].chat("erin", word); got != "echo: "+word {
			t.Fatalf("answer %q", got)
		}
	}
	for _, r := range rigs {
		r.h.must("stop")
	}
	for _, r := range rigs {
		r.start()
	}
	for _, r := range rigs {
		awaitStatus(t, r.h, "the quorum again", func(st protocol.ClusterStatus) bool { return st.Quorum && upCount(st) == 3 })
	}
	var conv []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if code, _ := tryPost(rigs[2], "erin", "three"); code == http.StatusOK {
			conv = llmConversation(llmLast(t, rigs[2].llm))
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no answer after the restart")
		}
	}
	if got := strings.Join(conv, "|"); got != "user: one|assistant: echo: one|user: two|assistant: echo: two|user: three" {
		t.Fatalf("after the restart the turn sent %q", got)
	}
}
