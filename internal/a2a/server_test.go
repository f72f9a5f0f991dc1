package a2a

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// CORE-SEND: a message becomes a session turn of user a2a:<caller>; the
// answer comes back as the task's artifact and final status.
func TestSendMessageBecomesASessionTurn(t *testing.T) {
	rg := newRig(t, nil)
	c := rg.client(peerToken)
	res := sendAsync(c, userMsg("what is 2+2?"))
	s := rg.sess.next(t)
	if s.in.Channel != beamclaw.ChannelA2A || s.in.UserID != "a2a:peer1" || s.in.AgentID != "default" || s.in.Content != "what is 2+2?" {
		t.Fatalf("inbound = %+v", s.in)
	}
	finish(s.in, "It is ", "4.")
	task := wait(t, res).task(t)
	if task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state %s, want completed", task.Status.State)
	}
	if got := artifactText(task); got != "It is 4." {
		t.Fatalf("artifact %q", got)
	}
	if got := textOf(task.Status.Message); got != "It is 4." {
		t.Fatalf("status message %q", got)
	}
	got, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCompleted || artifactText(got) != "It is 4." {
		t.Fatalf("GetTask = %+v, %v", got, err)
	}
}

// The cards say who the agent is, where to call it (JSON-RPC v1.0 and
// v0.3, HTTP+JSON) and that a bearer token is needed; they are public.
func TestAgentCards(t *testing.T) {
	rg := newRig(t, nil)
	for _, path := range []string{"/.well-known/agent-card.json", "/a2a/agents/coder/.well-known/agent-card.json"} {
		resp, b := rg.do("GET", path, "", "")
		var card a2a.AgentCard
		if err := json.Unmarshal(b, &card); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		if len(card.SupportedInterfaces) != 3 || card.SupportedInterfaces[0].ProtocolBinding != a2a.TransportProtocolJSONRPC ||
			!strings.HasPrefix(card.SupportedInterfaces[0].URL, rg.url+"/a2a") {
			t.Fatalf("%s: interfaces %+v", path, card.SupportedInterfaces)
		}
		if _, ok := card.SecuritySchemes[securityScheme]; !ok || !card.Capabilities.Streaming || len(card.Skills) != 2 {
			t.Fatalf("%s: card %+v", path, card)
		}
	}
	_, b := rg.do("GET", "/.well-known/agent.json", "", "")
	if !strings.Contains(string(b), `"protocolVersion": "0.3"`) || !strings.Contains(string(b), `"url": "`+rg.url+`/a2a"`) {
		t.Fatalf("legacy card: %s", b)
	}
	if resp, _ := rg.do("GET", "/a2a/agents/nobody/.well-known/agent-card.json", "", ""); resp.StatusCode != 404 {
		t.Fatalf("unknown agent's card: %d", resp.StatusCode)
	}
}

// Without a token, or with a wrong one, every call is 401.
func TestCallsNeedAToken(t *testing.T) {
	rg := newRig(t, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`
	for _, tok := range []string{"", "Bearer " + strings.Repeat("x", 40), "Basic " + peerToken} {
		resp, _ := rg.do("POST", "/a2a", tok, body)
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("Authorization %q: %d", tok, resp.StatusCode)
		}
	}
}

func TestClosedWithoutAToken(t *testing.T) {
	if (Options{}).Closed() == "" || (Options{Peers: []Peer{{Name: "x", URL: "http://x"}}}).Closed() == "" {
		t.Fatal("an edge with no token to check must stay closed")
	}
	if (Options{Peers: []Peer{{Name: "x", Token: peerToken}}}).Closed() != "" {
		t.Fatal("a peer token opens the edge")
	}
	if _, err := New(Options{Sessions: newFakeSessions(), Agents: fakeAgents{}, DB: nil}); err == nil {
		t.Fatal("New without a DB or token succeeded")
	}
}

// The HTTP+JSON binding serves the same tasks, for the default agent and
// a named one.
func TestRESTBinding(t *testing.T) {
	rg := newRig(t, nil)
	for _, base := range []string{"/a2a/rest", "/a2a/agents/coder/rest"} {
		done := make(chan []byte, 1)
		go func() {
			_, b := rg.do("POST", base+"/message:send", "Bearer "+peerToken,
				`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"rest"}]}}`)
			done <- b
		}()
		s := rg.sess.next(t)
		finish(s.in, "ok")
		b := wait(t, done)
		if !strings.Contains(string(b), `"TASK_STATE_COMPLETED"`) {
			t.Fatalf("%s: %s", base, b)
		}
		if base == "/a2a/agents/coder/rest" && s.in.AgentID != "coder" {
			t.Fatalf("agent %q", s.in.AgentID)
		}
	}
}
