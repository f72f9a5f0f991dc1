package a2a

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store/replicatest"
)

// TestTasksAreTheClusters: in cluster mode a task written on one node is
// read on another; a node that restarts fails only its own unfinished
// tasks, and a node that stopped answering has its unfinished tasks
// failed by the others, whose own are left running.
func TestTasksAreTheClusters(t *testing.T) {
	nodes, dbs := replicatest.Stores(t, 3, 3)
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	var stores []*TaskStore
	for i, db := range dbs {
		ts, err := newTaskStore(db, nodes[i].ID(), clk, func(context.Context, beamclaw.EventName, ...slog.Attr) {})
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, ts)
	}
	put(t, stores[0], "on-n1", "peer1", a2a.TaskStateSubmitted, true)
	put(t, stores[1], "on-n2", "peer1", a2a.TaskStateSubmitted, true)
	state := func(ts *TaskStore, id string) a2a.TaskState {
		st, err := ts.Get(scoped("peer1", "default"), a2a.TaskID(id))
		if err != nil {
			return ""
		}
		return st.Task.Status.State
	}
	for deadline := time.Now().Add(15 * time.Second); state(stores[2], "on-n1") == "" || state(stores[2], "on-n2") == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the third node never read the tasks of the other two")
		}
	}
	if n, err := stores[0].recoverTasks(nil); err != nil || n != 1 {
		t.Fatalf("n1 restarting failed %d tasks (%v); want its own one", n, err)
	}
	if got := state(stores[0], "on-n2"); got != a2a.TaskStateSubmitted {
		t.Fatalf("n2's running task is %s after n1 restarted", got)
	}
	n, err := stores[2].recoverTasks(map[string]bool{"n1": true, "n3": true}) // n2 stopped answering
	if err != nil || n != 1 {
		t.Fatalf("n3 failed %d tasks of gone nodes (%v); want n2's one", n, err)
	}
	for deadline := time.Now().Add(15 * time.Second); state(stores[1], "on-n1") != a2a.TaskStateFailed ||
		state(stores[1], "on-n2") != a2a.TaskStateFailed; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("on n2: on-n1 %s, on-n2 %s; want both failed", state(stores[1], "on-n1"), state(stores[1], "on-n2"))
		}
	}
}
