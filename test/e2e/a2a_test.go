package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// The A2A suites are named after the A2A TCK requirements they cover
// (CORE-SEND, CORE-STREAM, CORE-GET, CORE-LIST, CORE-CANCEL,
// CORE-EXECUTION-MODE), and drive the real binary with a2a-go's client,
// a2a-go's `a2a` CLI and npm @a2a-js/sdk.

// CORE-SEND, CORE-GET: a2a-go's client discovers the agent from its card
// and sends a message; the task completes with the agent's answer, and
// GetTask reads it back (with a history length).
func TestA2A_CORE_SEND_CORE_GET(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	r.start()
	c := r.a2aClient(a2aGatewayToken)
	card, err := c.GetExtendedAgentCard(a2aCtx(t), &a2a.GetExtendedAgentCardRequest{})
	if err != nil || card.Name != "default" || !card.Capabilities.Streaming || len(card.SecuritySchemes) != 1 ||
		card.SupportedInterfaces[0].URL != r.a2aURL()+"/a2a" {
		t.Fatalf("card %+v, %v", card, err)
	}
	task := a2aSend(t, c, a2aMsg("what is 6*7?"))
	if task.Status.State != a2a.TaskStateCompleted || a2aAnswer(task) != "echo: what is 6*7?" {
		t.Fatalf("task %s %q", task.Status.State, a2aAnswer(task))
	}
	if got := llmLast(t, r.llm).LastUser(); got != "what is 6*7?" {
		t.Fatalf("the model saw %q", got)
	}
	one := 1
	got, err := c.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: task.ID, HistoryLength: &one})
	if err != nil || got.Status.State != a2a.TaskStateCompleted || a2aAnswer(got) != a2aAnswer(task) || len(got.History) != 1 {
		t.Fatalf("GetTask = %+v, %v", got, err)
	}
	if _, err := c.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: "no-such-task"}); err == nil {
		t.Fatal("GetTask of an unknown task succeeded")
	}
}

// CORE-STREAM: the stream is the task, working, the answer as artifact
// chunks and completed; SubscribeToTask joins a running task and sees it
// end.
func TestA2A_CORE_STREAM_Resubscribe(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	hold := make(chan struct{})
	r.llm.Script(fakellm.Reply{Chunks: []string{"alpha beta gamma delta epsilon zeta eta theta ", "iota kappa"},
		Hold: hold, HoldAfter: 1})
	r.start()
	c := r.a2aClient(a2aGatewayToken)
	ctx := a2aCtx(t)
	events := a2aStream(ctx, c.SendStreamingMessage(ctx, a2aMsg("tell me the alphabet")))
	var kinds []string
	var taskID a2a.TaskID
	for !slices.ContainsFunc(kinds, func(k string) bool { return strings.HasPrefix(k, "artifact:") }) {
		ev, ok := nextEvent(t, events)
		if !ok {
			t.Fatalf("stream ended early: %v", kinds)
		}
		taskID = ev.TaskInfo().TaskID
		kinds = append(kinds, eventKind(ev))
	}
	sub := a2aStream(ctx, c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: taskID}))
	first, ok := nextEvent(t, sub)
	if !ok || eventKind(first) != "task:working" {
		t.Fatalf("resubscription began with %v", first)
	}
	close(hold)
	for ev, ok := nextEvent(t, events); ok; ev, ok = nextEvent(t, events) {
		kinds = append(kinds, eventKind(ev))
	}
	// submitted, working, the answer in chunks (at least two: one came
	// while the model was held), the whole answer, completed.
	const answer = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
	n := len(kinds)
	streamed := ""
	for _, k := range kinds[2 : n-2] {
		streamed += strings.TrimPrefix(k, "artifact:")
	}
	if n < 6 || kinds[0] != "task:submitted" || kinds[1] != "status:working" || streamed != answer ||
		kinds[n-2] != "artifact:"+answer || kinds[n-1] != "status:completed" {
		t.Fatalf("stream: %q", kinds)
	}
	var last a2a.Event
	for ev, ok := nextEvent(t, sub); ok; ev, ok = nextEvent(t, sub) {
		last = ev
	}
	if last == nil || eventKind(last) != "status:completed" {
		t.Fatalf("resubscription ended with %v", last)
	}
}

// CORE-LIST: a caller lists its own tasks, newest first, a page at a time;
// another caller's tasks are neither listed nor readable.
func TestA2A_CORE_LIST_NewestFirstOwnOnly(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	r.start()
	gw, peer := r.a2aClient(a2aGatewayToken), r.a2aClient(a2aPeerToken)
	var ids []a2a.TaskID
	for _, q := range []string{"one", "two", "three"} {
		ids = append(ids, a2aSend(t, gw, a2aMsg(q)).ID)
	}
	theirs := a2aSend(t, peer, a2aMsg("peer's own"))
	page, err := gw.ListTasks(a2aCtx(t), &a2a.ListTasksRequest{PageSize: 2})
	if err != nil || page.TotalSize != 3 || len(page.Tasks) != 2 || page.NextPageToken == "" ||
		page.Tasks[0].ID != ids[2] || page.Tasks[1].ID != ids[1] {
		t.Fatalf("page 1: %+v %v", page, err)
	}
	page, err = gw.ListTasks(a2aCtx(t), &a2a.ListTasksRequest{PageSize: 2, PageToken: page.NextPageToken})
	if err != nil || len(page.Tasks) != 1 || page.Tasks[0].ID != ids[0] || page.NextPageToken != "" {
		t.Fatalf("page 2: %+v %v", page, err)
	}
	mine, err := peer.ListTasks(a2aCtx(t), &a2a.ListTasksRequest{})
	if err != nil || len(mine.Tasks) != 1 || mine.Tasks[0].ID != theirs.ID {
		t.Fatalf("peer's list: %+v %v", mine, err)
	}
	if _, err := peer.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: ids[0]}); err == nil {
		t.Fatal("a peer read the gateway caller's task")
	}
}

// CORE-CANCEL: canceling a running turn (the model is still streaming)
// cancels the task, ends the stream, and the run's late answer does not
// change it.
func TestA2A_CORE_CANCEL_RunningTurn(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	hold := make(chan struct{})
	r.llm.Script(fakellm.Reply{Text: "a slow answer", Hold: hold})
	r.start()
	c := r.a2aClient(a2aPeerToken)
	ctx := a2aCtx(t)
	events := a2aStream(ctx, c.SendStreamingMessage(ctx, a2aMsg("take your time")))
	taskID := untilWorking(t, events)
	got, err := c.CancelTask(a2aCtx(t), &a2a.CancelTaskRequest{ID: taskID})
	if err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask = %+v, %v", got, err)
	}
	if last := lastEvent(t, events); last == nil || eventKind(last) != "status:canceled" {
		t.Fatalf("the stream ended with %v", last)
	}
	close(hold)
	// The session runs one turn at a time: once the next one is answered,
	// the canceled run is over.
	if next := a2aSend(t, c, a2aMsg("next")); next.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("next task %s", next.Status.State)
	}
	after, err := c.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: taskID})
	if err != nil || after.Status.State != a2a.TaskStateCanceled || a2aAnswer(after) != "" {
		t.Fatalf("after the run ended: %+v %v", after, err)
	}
	if _, err := c.CancelTask(a2aCtx(t), &a2a.CancelTaskRequest{ID: after.ID}); err != nil {
		t.Logf("canceling a canceled task again: %v", err)
	}
}

// CORE-EXECUTION-MODE: a blocking send answers the finished task; a
// returnImmediately send answers at once with the task still running,
// which completes later.
func TestA2A_CORE_EXECUTION_MODE_BlockingAndReturnImmediately(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	hold := make(chan struct{})
	r.llm.Script(fakellm.Reply{Text: "done later", Hold: hold})
	r.start()
	c := r.a2aClient(a2aGatewayToken)
	req := a2aMsg("background job")
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	task := a2aSend(t, c, req)
	if task.Status.State.Terminal() {
		t.Fatalf("returnImmediately answered a finished task: %s", task.Status.State)
	}
	close(hold)
	pollUntil(t, 20e9, "the background task completes", func() bool {
		got, err := c.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: task.ID})
		return err == nil && got.Status.State == a2a.TaskStateCompleted && a2aAnswer(got) == "done later"
	})
	blocking := a2aSend(t, c, a2aMsg("now"))
	if blocking.Status.State != a2a.TaskStateCompleted || a2aAnswer(blocking) != "echo: now" {
		t.Fatalf("blocking send: %s %q", blocking.Status.State, a2aAnswer(blocking))
	}
}

// A v0.3 client's message/send is answered in v0.3 shape; the legacy card
// is served too.
func TestA2A_V03MessageSend(t *testing.T) {
	r := newA2ARig(t, rigOptions{}, "")
	r.start()
	code, body := r.a2aPost("/a2a", a2aGatewayToken, `{"jsonrpc":"2.0","id":"v03","method":"message/send","params":`+
		`{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"old client"}]}}}`)
	var resp struct {
		ID     string `json:"id"`
		Result struct {
			Kind      string                 `json:"kind"`
			Status    struct{ State string } `json:"status"`
			Artifacts []struct {
				Parts []struct{ Kind, Text string } `json:"parts"`
			} `json:"artifacts"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &resp); code != 200 || err != nil {
		t.Fatalf("%d %v: %s", code, err, body)
	}
	res := resp.Result
	if resp.ID != "v03" || res.Kind != "task" || res.Status.State != "completed" || len(res.Artifacts) != 1 ||
		res.Artifacts[0].Parts[0].Kind != "text" || res.Artifacts[0].Parts[0].Text != "echo: old client" {
		t.Fatalf("v0.3 answer: %s", body)
	}
	status, card := get(t, r.a2aURL()+"/.well-known/agent.json")
	if status != 200 || !strings.Contains(card, `"protocolVersion": "0.3"`) || !strings.Contains(card, `"url": "`+r.a2aURL()+`/a2a"`) {
		t.Fatalf("legacy card: %d %s", status, card)
	}
}
