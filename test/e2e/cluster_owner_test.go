package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/responses"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// A response running on one node is cancelled through another: the
// cancel goes to the node that runs it, the stream ends, and every node
// reads the response as cancelled.
func TestClusterCancelReachesTheRunningNode(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	startCluster(t, rigs)
	hold := make(chan struct{})
	defer close(hold)
	rigs[0].llm.Script(fakellm.Reply{Chunks: []string{"thinking ", "slowly"}, Hold: hold, HoldAfter: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	id := cancelMidStream(ctx, t, rigs[1].sdkClient(), rigs[2].sdkClient()) // runs on n2, cancelled through n3
	for i, r := range rigs {
		c := r.sdkClient()
		got, err := c.Responses.Get(ctx, id, responses.ResponseGetParams{})
		if err != nil || got.Status != "cancelled" {
			t.Errorf("n%d reads: %v %+v", i+1, err, got.Status)
		}
	}
}

// A session answering on one node is not deleted through another: it is
// refused as on its own node. Once it answered, a delete through a third
// node removes it from the node that has it live and from every list, and
// its next message starts afresh.
func TestClusterDeleteReachesTheOwner(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	startCluster(t, rigs)
	hold := make(chan struct{})
	rigs[0].llm.Script(fakellm.Reply{Text: "first"}, fakellm.Reply{Text: "done", Hold: hold})
	to := turnTo{session: "doomed", user: "ana"}
	if code, body := rigs[0].postTo(to, "hold this"); code != http.StatusOK {
		t.Fatalf("n1: %d %s", code, body)
	}
	asked := len(rigs[0].llm.Requests())
	answered := make(chan int, 1)
	go func() {
		code, _ := rigs[0].postTo(to, "and now wait")
		answered <- code
	}()
	pollUntil(t, 15*time.Second, "n1 asks the model", func() bool { return len(rigs[0].llm.Requests()) > asked })
	var id string
	pollUntil(t, 15*time.Second, "the session listed on n2", func() bool {
		for _, s := range rigs[1].h.sessions() {
			if s.Title == "hold this" {
				id = s.ID
			}
		}
		return id != ""
	})
	if res := rigs[1].h.run("sessions", "delete", "-y", id); res.code == 0 || !strings.Contains(res.stderr, "answering") {
		t.Errorf("a delete through n2 of a session answering on n1: exit %d, %s", res.code, res.stderr)
	}
	close(hold)
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("the held turn ended %d", code)
	}
	rigs[2].h.must("sessions", "delete", "-y", id) // n1 still has it live, idle
	for i, r := range rigs {
		for _, s := range r.h.sessions("--archived") {
			if s.ID == id {
				t.Errorf("n%d still lists the deleted session", i+1)
			}
		}
	}
	if code, body := rigs[0].postTo(to, "again"); code != http.StatusOK {
		t.Fatalf("the next message: %d %s", code, body)
	}
	var d protocol.SessionDetail
	if err := json.Unmarshal([]byte(rigs[1].h.must("sessions", "show", id, "--json").stdout), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Messages) != 2 { // "again" and its answer
		t.Errorf("after the delete the session goes on with %d messages, want 2 (afresh)", len(d.Messages))
	}
	// n1 leaves: the session is live nowhere, and n2 deletes it itself.
	if res := rigs[1].h.run("sessions", "delete", "-y", "session-nosuch"); res.code == 0 || !strings.Contains(res.stderr, "no session session-nosuch") {
		t.Errorf("a delete of no session: exit %d, %s", res.code, res.stderr)
	}
	rigs[0].h.must("stop")
	rigs[1].h.must("sessions", "delete", "-y", id)
	for _, s := range rigs[2].h.sessions("--archived") {
		if s.ID == id {
			t.Error("n3 still lists the session deleted through n2 after n1 left")
		}
	}
}
