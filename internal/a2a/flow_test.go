package a2a

import (
	"context"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// CORE-STREAM: the task comes first, then working, the streamed text as
// artifact updates, the final answer and completed.
func TestStreamingRelaysTheRun(t *testing.T) {
	rg := newRig(t, nil)
	c := rg.client(gatewayToken)
	events := make(chan a2a.Event, 64)
	errs := make(chan error, 1)
	go func() {
		defer close(events)
		for ev, err := range c.SendStreamingMessage(context.Background(), userMsg("hi")) {
			if err != nil {
				errs <- err
				return
			}
			events <- ev
		}
	}()
	s := rg.sess.next(t)
	if s.in.UserID != "a2a:gateway" {
		t.Fatalf("user %q", s.in.UserID)
	}
	finish(s.in, "Hel", "lo")
	var kinds []string
	for ev := range events {
		switch e := ev.(type) {
		case *a2a.Task:
			kinds = append(kinds, "task:"+stateName(e.Status.State))
		case *a2a.TaskStatusUpdateEvent:
			kinds = append(kinds, "status:"+stateName(e.Status.State))
		case *a2a.TaskArtifactUpdateEvent:
			kinds = append(kinds, "artifact:"+textOfParts(e.Artifact.Parts))
		}
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	want := []string{"task:submitted", "status:working", "artifact:Hel", "artifact:lo", "artifact:Hello", "status:completed"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("events %v, want %v", kinds, want)
	}
}

// An approval request becomes input-required; the peer's "yes" on the
// task answers it, and the run's answer completes the task.
func TestApprovalRoundTripThroughInputRequired(t *testing.T) {
	rg := newRig(t, nil)
	c := rg.client(peerToken)
	res := sendAsync(c, userMsg("delete the logs"))
	s := rg.sess.next(t)
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvState, Text: "streaming"})
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalRequest, Approval: &beamclaw.ApprovalRequest{
		ID: "appr_1", ToolName: "bash", Args: `{"cmd":"rm logs"}`, Risk: "high", Prompt: "Allow bash? Reply /yes, /no or /always."}})
	task := wait(t, res).task(t)
	if task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("state %s, want input-required", task.Status.State)
	}
	meta, _ := task.Status.Message.Metadata[metaKey].(map[string]any)
	if meta["approval_id"] != "appr_1" || meta["tool"] != "bash" {
		t.Fatalf("status message metadata %+v", task.Status.Message.Metadata)
	}
	// Not an answer: asked again, nothing decided.
	again := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("what?"))
	r2, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: again})
	if err != nil || r2.(*a2a.Task).Status.State != a2a.TaskStateInputRequired || len(rg.sess.decided()) != 0 {
		t.Fatalf("non-answer: %+v %v decided %v", r2, err, rg.sess.decided())
	}
	yes := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("Yes."))
	res = sendAsync(c, &a2a.SendMessageRequest{Message: yes})
	if got := wait(t, rg.sess.decides); got != "appr_1=allow" {
		t.Fatalf("decision %v", got)
	}
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalResult, Approval: &beamclaw.ApprovalRequest{ID: "appr_1"}, Text: "allow"})
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "Deleted."})
	task = wait(t, res).task(t)
	if task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "Deleted." {
		t.Fatalf("after yes: %s %q", task.Status.State, artifactText(task))
	}
}

// A run that fails fails its task, with the run's message.
func TestRunErrorFailsTheTask(t *testing.T) {
	rg := newRig(t, nil)
	c := rg.client(peerToken)
	res := sendAsync(c, userMsg("hi"))
	s := rg.sess.next(t)
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, Text: "the model provider failed; please retry"})
	task := wait(t, res).task(t)
	if task.Status.State != a2a.TaskStateFailed || textOf(task.Status.Message) != "the model provider failed; please retry" {
		t.Fatalf("task %s %q", task.Status.State, textOf(task.Status.Message))
	}
}

// CORE-CANCEL: canceling a running task stops its run and cancels it;
// the run's later events change nothing.
func TestCancelARunningTask(t *testing.T) {
	rg := newRig(t, nil)
	c := rg.client(peerToken)
	req := userMsg("long job")
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	first := sendAsync(c, req)
	s := rg.sess.next(t)
	task := wait(t, first).task(t)
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvState, Text: "streaming"})
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: "partial"})
	got, err := c.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask = %+v, %v", got, err)
	}
	rg.sess.mu.Lock()
	cancels := slices.Clone(rg.sess.cancels)
	rg.sess.mu.Unlock()
	if !slices.Equal(cancels, []string{s.runID}) {
		t.Fatalf("runs canceled %v, want [%s]", cancels, s.runID)
	}
	s.in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "too late"})
	after, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: task.ID})
	if err != nil || after.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("GetTask after cancel = %+v, %v", after, err)
	}
	if _, err := c.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: "no-such-task"}); err == nil {
		t.Fatal("canceling an unknown task succeeded")
	}
}
