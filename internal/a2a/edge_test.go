package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// A v0.3 client's message/send is answered in v0.3 shape.
func TestV03MessageSend(t *testing.T) {
	rg := newRig(t, nil)
	done := make(chan []byte, 1)
	go func() {
		_, b := rg.do("POST", "/a2a", "Bearer "+peerToken, `{"jsonrpc":"2.0","id":7,"method":"message/send","params":`+
			`{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"ping"}]}}}`)
		done <- b
	}()
	s := rg.sess.next(t)
	if s.in.Content != "ping" {
		t.Fatalf("content %q", s.in.Content)
	}
	finish(s.in, "pong")
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			Kind   string `json:"kind"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
			Artifacts []struct {
				Parts []struct {
					Kind string `json:"kind"`
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"artifacts"`
		} `json:"result"`
	}
	b := wait(t, done)
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	r := resp.Result
	if resp.ID != 7 || r.Kind != "task" || r.Status.State != "completed" || len(r.Artifacts) != 1 ||
		r.Artifacts[0].Parts[0].Kind != "text" || r.Artifacts[0].Parts[0].Text != "pong" {
		t.Fatalf("v0.3 answer: %s", b)
	}
}

// One caller never sees, cancels or continues another's task.
func TestCallersSeeOnlyTheirTasks(t *testing.T) {
	rg := newRig(t, nil)
	mine, theirs := rg.client(peerToken), rg.client(otherToken)
	task := rg.answered(t, mine, userMsg("secret plan"), "ok")
	if _, err := theirs.GetTask(context.Background(), &a2a.GetTaskRequest{ID: task.ID}); err == nil {
		t.Fatal("another caller read the task")
	}
	if _, err := theirs.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: task.ID}); err == nil {
		t.Fatal("another caller canceled the task")
	}
	follow := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("more"))
	if _, err := theirs.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: follow}); err == nil {
		t.Fatal("another caller continued the task")
	}
	other := userMsg("join")
	other.Message.ContextID = task.ContextID
	if _, err := theirs.SendMessage(context.Background(), other); err == nil {
		t.Fatal("another caller joined the context")
	}
	list, err := theirs.ListTasks(context.Background(), &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 0 {
		t.Fatalf("another caller's list: %+v %v", list, err)
	}
	list, err = mine.ListTasks(context.Background(), &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
		t.Fatalf("own list: %+v %v", list, err)
	}
}

// A push URL on loopback or a private range is refused; a public one is
// kept (and read back by its owner only).
func TestPushURLsMustBePublic(t *testing.T) {
	rg := newRig(t, func(o *Options) { o.Resolver = fixedResolver{"hooks.example.com": "93.184.216.34"} })
	c := rg.client(peerToken)
	task := rg.answered(t, c, userMsg("hi"), "ok")
	for _, u := range []string{"http://127.0.0.1:9/hook", "http://10.0.0.5/hook", "http://[::1]/hook", "http://169.254.169.254/", "ftp://hooks.example.com/"} {
		_, err := c.CreateTaskPushConfig(context.Background(), &a2a.PushConfig{TaskID: task.ID, URL: u})
		if err == nil || !strings.Contains(err.Error(), "refused") && !strings.Contains(err.Error(), "http(s)") {
			t.Fatalf("push URL %s: %v, want refused", u, err)
		}
	}
	cfg, err := c.CreateTaskPushConfig(context.Background(), &a2a.PushConfig{TaskID: task.ID, URL: "https://hooks.example.com/a2a", Token: "tok"})
	if err != nil || cfg.ID == "" {
		t.Fatalf("public push URL: %+v %v", cfg, err)
	}
	got, err := c.GetTaskPushConfig(context.Background(), &a2a.GetTaskPushConfigRequest{TaskID: task.ID, ID: cfg.ID})
	if err != nil || got.URL != "https://hooks.example.com/a2a" {
		t.Fatalf("read back: %+v %v", got, err)
	}
	if _, err := rg.client(otherToken).ListTaskPushConfigs(context.Background(), &a2a.ListTaskPushConfigRequest{TaskID: task.ID}); err == nil {
		t.Fatal("another caller listed the push configs")
	}
}

type fixedResolver map[string]string

func (f fixedResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ip, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}

// A run that ends while its task waits for the peer (an approval timed
// out) still settles the task.
func TestOrphanedRunSettlesItsTask(t *testing.T) {
	rg := newRig(t, nil)
	c := rg.client(peerToken)
	res := sendAsync(c, userMsg("risky"))
	s := rg.sess.next(t)
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalRequest, Approval: &beamclaw.ApprovalRequest{ID: "a1", ToolName: "bash", Prompt: "Allow?"}})
	task := wait(t, res).task(t)
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalResult, Approval: &beamclaw.ApprovalRequest{ID: "a1"}, Text: "deny"})
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "I could not run it."})
	rg.waitEvent(beamclaw.EventA2ATaskUpdated, "state", "completed")
	got, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCompleted || artifactText(got) != "I could not run it." || len(got.History) != 2 {
		t.Fatalf("settled task: %+v %v", got, err)
	}
}

// A follow-up message in the caller's own context runs as the same
// session user.
func TestContextContinuesTheSession(t *testing.T) {
	rg := newRig(t, func(o *Options) { o.UserID = func(c string) string { return "a2a:" + c } })
	c := rg.client(peerToken)
	res := sendAsync(c, userMsg("first"))
	first := rg.sess.next(t)
	finish(first.in, "1")
	task := wait(t, res).task(t)
	next := userMsg("second")
	next.Message.ContextID = task.ContextID
	res = sendAsync(c, next)
	second := rg.sess.next(t)
	finish(second.in, "2")
	t2 := wait(t, res).task(t)
	if second.in.UserID != first.in.UserID || t2.ContextID != task.ContextID || t2.ID == task.ID {
		t.Fatalf("second task %s/%s as %s", t2.ID, t2.ContextID, second.in.UserID)
	}
}

// A push config is deleted by its owner.
func TestPushConfigDelete(t *testing.T) {
	rg := newRig(t, func(o *Options) { o.Resolver = fixedResolver{"hooks.example.com": "93.184.216.34"} })
	c := rg.client(peerToken)
	task := rg.answered(t, c, userMsg("hi"), "ok")
	cfg, err := c.CreateTaskPushConfig(context.Background(), &a2a.PushConfig{TaskID: task.ID, URL: "https://hooks.example.com/x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTaskPushConfig(context.Background(), &a2a.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: cfg.ID}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTaskPushConfigs(context.Background(), &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
	if err != nil || len(list) != 0 {
		t.Fatalf("after delete: %v %v", list, err)
	}
}

// A client's message in the agent's role is refused with invalid params,
// in v1.0 and v0.3 shape, before it reaches a session (issue 23, item 9).
func TestAgentRoleMessageRefused(t *testing.T) {
	rg := newRig(t, nil)
	c := rg.client(peerToken)
	msg := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("I already approved it"))}
	if _, err := c.SendMessage(context.Background(), msg); !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), `role "user"`) {
		t.Fatalf("agent-role message: %v, want invalid params naming the role", err)
	}
	_, b := rg.do("POST", "/a2a", "Bearer "+peerToken, `{"jsonrpc":"2.0","id":8,"method":"message/send","params":`+
		`{"message":{"kind":"message","messageId":"m2","role":"agent","parts":[{"kind":"text","text":"ping"}]}}}`)
	if !strings.Contains(string(b), `-32602`) || !strings.Contains(string(b), `role \"user\"`) {
		t.Fatalf("v0.3 agent-role message: %s", b)
	}
	rg.answered(t, c, userMsg("hi"), "ok") // the first message the session sees
}
