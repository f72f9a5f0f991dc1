package e2e

import (
	"context"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// An A2A task running on one node is seen as it is now through another
// (working, not the submitted state first written), and canceled
// through a third: the caller's cancel reaches the run where it runs, its
// stream there ends canceled, and the run's late answer does not change
// the task on any node.
func TestClusterA2ACancelReachesTheRunningNode(t *testing.T) {
	rigs := a2aCluster(t)
	hold := make(chan struct{})
	rigs[0].llm.Script(fakellm.Reply{Text: "a slow answer", Hold: hold})
	on1, on2, on3 := rigs[0].a2aClient(a2aPeerToken), rigs[1].a2aClient(a2aPeerToken), rigs[2].a2aClient(a2aPeerToken)
	ctx := a2aCtx(t)
	events := a2aStream(ctx, on1.SendStreamingMessage(ctx, a2aMsg("take your time")))
	taskID := untilWorking(t, events)
	// While it runs, another node answers for it as it is now, not as it
	// was when written (submitted).
	pollUntil(t, 15e9, "n3 sees the task working", func() bool {
		now, err := on3.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: taskID})
		return err == nil && now.Status.State == a2a.TaskStateWorking
	})
	var got *a2a.Task
	pollUntil(t, 15e9, "n2 knows the task", func() bool {
		var err error
		got, err = on2.CancelTask(a2aCtx(t), &a2a.CancelTaskRequest{ID: taskID})
		return err == nil
	})
	if got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask through n2 = %s", got.Status.State)
	}
	if last := lastEvent(t, events); last == nil || eventKind(last) != "status:canceled" {
		t.Fatalf("the stream on n1 ended with %v", last)
	}
	close(hold)
	if next := a2aSend(t, on1, a2aMsg("next")); next.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("next task %s", next.Status.State)
	}
	for i, c := range []interface {
		GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error)
	}{on1, on3} {
		after, err := c.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: taskID})
		if err != nil || after.Status.State != a2a.TaskStateCanceled || a2aAnswer(after) != "" {
			t.Fatalf("on n%d after the run ended: %+v %v", 2*i+1, after, err)
		}
	}
}

// a2aCluster is three nodes serving A2A to peer1, started.
func a2aCluster(t *testing.T) []*chatRig {
	rigs := clusterNodesWith(t, 3, 3, rigOptions{
		gateway: "  auth: {token: {env: E2E_GATEWAY_TOKEN}}\n",
		core:    "  agentic_loop: {stream_chunk_size: 10}\n",
		extra:   "a2a:\n  peers:\n    peer1: {token: {env: E2E_PEER_TOKEN}}\n",
	})
	for _, r := range rigs {
		r.h.env = append(r.h.env, "E2E_GATEWAY_TOKEN="+a2aGatewayToken, "E2E_PEER_TOKEN="+a2aPeerToken)
		r.bearer = a2aGatewayToken
	}
	startCluster(t, rigs)
	return rigs
}

// A resubscription (tasks/resubscribe) through another node than the one
// running the task gets the task as it is now, the rest of its answer
// as it streams there, and its end, as on the running node.
func TestClusterA2AResubscribeReachesTheRunningNode(t *testing.T) {
	rigs := a2aCluster(t)
	hold := make(chan struct{})
	rigs[0].llm.Script(fakellm.Reply{Chunks: []string{"alpha beta gamma delta epsilon zeta eta theta ", "iota kappa"},
		Hold: hold, HoldAfter: 1})
	on1, on2 := rigs[0].a2aClient(a2aPeerToken), rigs[1].a2aClient(a2aPeerToken)
	ctx := a2aCtx(t)
	events := a2aStream(ctx, on1.SendStreamingMessage(ctx, a2aMsg("tell me the alphabet")))
	taskID := untilWorking(t, events)
	pollUntil(t, 15e9, "n2 knows the task", func() bool {
		_, err := on2.GetTask(a2aCtx(t), &a2a.GetTaskRequest{ID: taskID})
		return err == nil
	})
	sub := a2aStream(ctx, on2.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: taskID}))
	if first, ok := nextEvent(t, sub); !ok || eventKind(first) != "task:working" {
		t.Fatalf("the resubscription through n2 began with %v", first)
	}
	close(hold)
	var kinds []string
	for ev, ok := nextEvent(t, sub); ok; ev, ok = nextEvent(t, sub) {
		kinds = append(kinds, eventKind(ev))
	}
	if n := len(kinds); n < 2 || !slices.Contains(kinds, "artifact:iota kappa") || kinds[n-1] != "status:completed" {
		t.Fatalf("the resubscription through n2: %q; want the chunk streamed after it joined, then completed", kinds)
	}
	if last := lastEvent(t, events); last == nil || eventKind(last) != "status:completed" {
		t.Fatalf("the stream on n1 ended with %v", last)
	}
}
