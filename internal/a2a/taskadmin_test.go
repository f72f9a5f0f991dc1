package a2a

import (
	"context"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// The operator lists every caller's tasks, on disk and in memory, newest
// first, by agent and state, and reads one with its history and
// artifacts (the admin API's GET /control/a2a/tasks[/{id}]).
func TestOperatorListsEveryCallersTasks(t *testing.T) {
	rg := newRig(t, nil)
	ctx := context.Background()
	trip := rg.answered(t, rg.client(peerToken), userMsg("plan a trip"), "Lisbon it is")
	hello := rg.answered(t, rg.client(otherToken), userMsg("hello"), "hi there")
	rg.s.tasks.bind("coding", binding{owner: "peer1", agent: "coder", user: "a2a:peer1"})
	if _, err := rg.s.tasks.Create(ctx, &a2a.Task{ID: "coding", ContextID: "ctx-coding",
		Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}); err != nil { // in memory only
		t.Fatal(err)
	}
	ids := func(agent, state string, limit int) []string {
		t.Helper()
		tasks, err := rg.s.Tasks(ctx, agent, state, limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, task := range tasks {
			out = append(out, task.ID)
		}
		return out
	}
	if got, want := ids("", "", 0), []string{"coding", string(hello.ID), string(trip.ID)}; !slices.Equal(got, want) {
		t.Errorf("every task: %v, want %v", got, want)
	}
	if got := ids("coder", "", 0); !slices.Equal(got, []string{"coding"}) {
		t.Errorf("the coder's tasks: %v", got)
	}
	if got := ids("", "completed", 0); !slices.Equal(got, []string{string(hello.ID), string(trip.ID)}) {
		t.Errorf("the completed tasks: %v", got)
	}
	if got := ids("default", "working", 0); len(got) != 0 {
		t.Errorf("the default agent's working tasks: %v", got)
	}
	if got := ids("", "", 1); !slices.Equal(got, []string{"coding"}) {
		t.Errorf("limit 1: %v", got)
	}
	if _, err := rg.s.Tasks(ctx, "", "sleepy", 0); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("an unknown state: %v, want invalid", err)
	}

	got, err := rg.s.Task(ctx, string(trip.ID))
	if err != nil {
		t.Fatal(err)
	}
	if got.Caller != "peer1" || got.Agent != "default" || got.State != "completed" || got.ContextID != trip.ContextID ||
		got.Created.IsZero() || got.Updated.Before(got.Created) {
		t.Errorf("the trip: %+v", got)
	}
	if len(got.History) == 0 || got.History[0] != (protocol.A2ATaskMessage{Role: "user", Text: "plan a trip"}) ||
		!slices.Contains(got.Artifacts, "Lisbon it is") {
		t.Errorf("the trip's history %+v and artifacts %q", got.History, got.Artifacts)
	}
	if _, err := rg.s.Task(ctx, "no-such-task"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("an unknown task: %v, want not found", err)
	}
}
