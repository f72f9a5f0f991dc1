package a2a

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// a2a_call delegates to a peer and returns its answer, by streaming or
// not; a peer that asks for input is reported with the task to answer.
func TestCallToolDelegates(t *testing.T) {
	rg := newRig(t, nil)
	tool := NewCallTool([]Peer{{Name: "helper", URL: rg.url, Token: peerToken}, {Name: "inbound-only", Token: otherToken}}, nil)
	if tool == nil {
		t.Fatal("no tool for a peer with a url")
	}
	spec := tool.Spec()
	if spec.Risk != beamclaw.RiskHigh || !strings.Contains(string(spec.Def.Parameters), `"enum":["helper"]`) {
		t.Fatalf("spec %+v %s", spec, spec.Def.Parameters)
	}
	for _, stream := range []bool{false, true} {
		args, _ := json.Marshal(map[string]any{"peer": "helper", "message": "capital of France?", "stream": stream})
		out := make(chan string, 1)
		go func() {
			s, err := tool.Execute(context.Background(), beamclaw.Invocation{Args: args})
			if err != nil {
				s = "error: " + err.Error()
			}
			out <- s
		}()
		s := rg.sess.next(t)
		if s.in.UserID != "a2a:peer1" || s.in.Content != "capital of France?" {
			t.Fatalf("inbound %+v", s.in)
		}
		finish(s.in, "Par", "is.")
		if got := wait(t, out); !strings.HasPrefix(got, "helper answered (task_id ") || !strings.HasSuffix(got, ":\nParis.") {
			t.Fatalf("stream=%v: %q", stream, got)
		}
	}
	args, _ := json.Marshal(map[string]any{"peer": "helper", "message": "risky"})
	out := make(chan string, 1)
	go func() {
		s, _ := tool.Execute(context.Background(), beamclaw.Invocation{Args: args})
		out <- s
	}()
	s := rg.sess.next(t)
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalRequest, Approval: &beamclaw.ApprovalRequest{ID: "a9", Prompt: "Allow bash?"}})
	if got := wait(t, out); !strings.Contains(got, "helper needs input") || !strings.Contains(got, "Allow bash?") {
		t.Fatalf("input-required: %q", got)
	}
	if _, err := tool.Execute(context.Background(), beamclaw.Invocation{Args: json.RawMessage(`{"peer":"nobody","message":"x"}`)}); err == nil {
		t.Fatal("an unknown peer was called")
	}
	if NewCallTool([]Peer{{Name: "x", Token: peerToken}}, nil) != nil {
		t.Fatal("a tool without a callable peer")
	}
	rg.stop() // the approval is still pending: stopping fails the run
}

// The token goes to the target's host only, never to a host its card
// names.
func TestTokenGoesToTheTargetHostOnly(t *testing.T) {
	seen := make(chan string, 4)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- "other:" + r.Header.Get("Authorization")
	}))
	defer other.Close()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- "target:" + r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"x","version":"1","description":"","capabilities":{},"defaultInputModes":[],` +
			`"defaultOutputModes":[],"skills":[],"supportedInterfaces":[{"url":"` + other.URL + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`))
	}))
	defer target.Close()
	c := NewCaller(nil)
	c.check = func(net.IP) error { return nil }
	_, err := c.Send(context.Background(), Target{URL: target.URL, Token: "secret-token"}, Request{Text: "hi"}, nil)
	if err == nil {
		t.Fatal("the fake card's endpoint answered nothing; Send should fail")
	}
	if got := <-seen; got != "target:Bearer secret-token" {
		t.Fatalf("card request: %q", got)
	}
	if got := <-seen; got != "other:" {
		t.Fatalf("the card's other host got %q", got)
	}
}
