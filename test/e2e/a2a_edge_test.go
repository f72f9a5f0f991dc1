package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// /a2a fails closed: without a token it is 401; with no token configured
// at all, neither /a2a nor the cards are served and the log says why.
func TestA2A_AuthFailsClosed(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	r.start()
	body := `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`
	for _, tok := range []string{"", strings.Repeat("x", 40)} {
		if code, resp := r.a2aPost("/a2a", tok, body); code != 401 {
			t.Fatalf("token %q: %d %s", tok, code, resp)
		}
	}
	if code, _ := r.a2aPost("/a2a/rest/message:send", "", `{}`); code != 401 {
		t.Fatalf("REST binding without a token: %d", code)
	}
	if code, resp := r.a2aPost("/a2a", a2aPeerToken, body); code != 200 {
		t.Fatalf("peer token: %d %s", code, resp)
	}
	if code, _ := get(t, r.a2aURL()+"/.well-known/agent-card.json"); code != 200 {
		t.Fatalf("the public card: %d", code)
	}
	if code, _ := r.post("", "the OpenAI API still wants the gateway token"); code != 401 {
		t.Fatalf("chat completions without the gateway token: %d", code)
	}

	open := newChatRig(t, rigOptions{})
	open.start()
	if code, _ := open.a2aPost("/a2a", "", body); code != 404 {
		t.Fatalf("/a2a with no token configured: %d", code)
	}
	if code, _ := get(t, open.a2aURL()+"/.well-known/agent-card.json"); code != 404 {
		t.Fatalf("card with no token configured: %d", code)
	}
	if logs := open.h.logs(); !strings.Contains(logs, "a2a: /a2a and the agent cards are off") ||
		!strings.Contains(logs, "A2A never runs unauthenticated") {
		t.Fatalf("no start line says why A2A is off:\n%s", logs)
	}
}

// A push URL on loopback or a private range is refused, set alone or with
// a message.
func TestA2A_PushURLOnPrivateAddressRefused(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	r.start()
	c := r.a2aClient(a2aPeerToken)
	task := a2aSend(t, c, a2aMsg("hi"))
	for _, u := range []string{"http://127.0.0.1:9/hook", "http://localhost:9/hook", "http://10.1.2.3/hook",
		"http://192.168.1.1/hook", "http://172.16.0.1/hook", "http://169.254.169.254/latest", "http://[::1]:9/hook"} {
		_, err := c.CreateTaskPushConfig(a2aCtx(t), &a2a.PushConfig{TaskID: task.ID, URL: u, Token: "t"})
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("push URL %s: %v, want refused", u, err)
		}
	}
	req := a2aMsg("with a push")
	req.Config = &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: "http://127.0.0.1:9/hook"}}
	if _, err := c.SendMessage(a2aCtx(t), req); err == nil {
		t.Error("a message with a loopback push URL was accepted")
	}
	list, err := c.ListTaskPushConfigs(a2aCtx(t), &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
	if err != nil || len(list) != 0 {
		t.Fatalf("push configs after the refusals: %v %v", list, err)
	}
}

// Tasks survive kill -9: a finished task reads back as it was; one the
// caller was streaming is failed (its run died with the process) and says
// so.
func TestA2A_TasksSurviveKill9(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	hold := make(chan struct{})
	r.llm.Script(fakellm.Reply{Text: "first answer"}, fakellm.Reply{Text: "never sent", Hold: hold})
	r.start()
	c := r.a2aClient(a2aGatewayToken)
	done := a2aSend(t, c, a2aMsg("first"))
	ctx := a2aCtx(t)
	events := a2aStream(ctx, c.SendStreamingMessage(ctx, a2aMsg("second")))
	ev, ok := nextEvent(t, events)
	if !ok || eventKind(ev) != "task:submitted" {
		t.Fatalf("stream began with %v", ev)
	}
	running := ev.TaskInfo().TaskID
	r.kill9()
	close(hold)
	for range events { // the stream breaks with the process
	}
	r.start()
	c = r.a2aClient(a2aGatewayToken)
	got, err := c.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: done.ID})
	if err != nil || got.Status.State != a2a.TaskStateCompleted || a2aAnswer(got) != "first answer" {
		t.Fatalf("finished task after kill -9: %+v %v", got, err)
	}
	got, err = c.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: running})
	if err != nil || got.Status.State != a2a.TaskStateFailed || !strings.Contains(a2aStatusText(got), "Interrupted") {
		t.Fatalf("running task after kill -9: %+v %v", got, err)
	}
	list, err := c.ListTasks(a2aCtx(t), &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 2 || list.Tasks[0].ID != running {
		t.Fatalf("list after kill -9: %+v %v", list, err)
	}
}

// An approval round trip through input-required: the agent's write_file
// needs approval on this remote channel; the peer's "yes" on the task runs
// it and the task completes.
func TestA2A_ApprovalRoundTripThroughInputRequired(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	r.llm.Script(fakellm.Reply{ToolCalls: []fakellm.ToolCall{{Name: "write_file",
		Arguments: `{"path":"a2a-note.txt","content":"written over A2A"}`}}}, fakellm.Reply{Text: "Saved the note."})
	r.start()
	c := r.a2aClient(a2aPeerToken)
	task := a2aSend(t, c, a2aMsg("save a note"))
	if task.Status.State != a2a.TaskStateInputRequired || !strings.Contains(a2aStatusText(task), "write_file") {
		t.Fatalf("task %s %q, want input-required about write_file", task.Status.State, a2aStatusText(task))
	}
	if _, err := os.Stat(r.agentFile("a2a-note.txt")); err == nil {
		t.Fatal("the file was written before the approval")
	}
	yes := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("yes"))
	done := a2aSend(t, c, &a2a.SendMessageRequest{Message: yes})
	if done.Status.State != a2a.TaskStateCompleted || a2aAnswer(done) != "Saved the note." {
		t.Fatalf("after yes: %s %q", done.Status.State, a2aAnswer(done))
	}
	if b, err := os.ReadFile(r.agentFile("a2a-note.txt")); err != nil || string(b) != "written over A2A" {
		t.Fatalf("the approved write: %q %v", b, err)
	}
	if tr := llmToolResults(llmLast(t, r.llm)); len(tr) != 1 || strings.Contains(tr[0], "not run") {
		t.Fatalf("tool results the model saw: %q", tr)
	}
}

// The gateway's rate limit applies to the A2A routes, calls and cards.
func TestA2A_RateLimited(t *testing.T) {
	r := newA2ARig(t, rigOptions{gateway: "  rate_limit: {enabled: true, requests: 3, window_seconds: 60}\n"}, "")
	r.start()
	body := `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`
	codes := map[int]int{}
	for range 3 {
		code, _ := r.a2aPost("/a2a", a2aGatewayToken, body)
		codes[code]++
	}
	code, _ := r.a2aPost("/a2a", a2aGatewayToken, body)
	if codes[200] != 3 || code != 429 {
		t.Fatalf("statuses %v then %d, want 3×200 then 429", codes, code)
	}
	if code, _ := get(t, r.a2aURL()+"/.well-known/agent-card.json"); code != 429 {
		t.Fatalf("the card past the limit: %d", code)
	}
}

// BEAMCLAW_USER makes every channel one person's, but an A2A caller is
// another agent: it gets a session of its own, not the owner's history.
func TestA2A_CallerIsNotTheCanonicalUser(t *testing.T) {
	r := newChatRig(t, rigOptions{extra: "a2a:\n  peers:\n    peer1: {token: {env: E2E_PEER_TOKEN}}\n"})
	r.h.env = append(r.h.env, "BEAMCLAW_USER=owner", "E2E_PEER_TOKEN="+a2aPeerToken)
	r.start()
	r.chat("someone", "my secret plan is X")
	a2aSend(t, r.a2aClient(a2aPeerToken), a2aMsg("what was the plan?"))
	if conv := llmConversation(llmLast(t, r.llm)); len(conv) != 1 || conv[0] != "user: what was the plan?" {
		t.Fatalf("the peer's turn saw %q", conv)
	}
}
