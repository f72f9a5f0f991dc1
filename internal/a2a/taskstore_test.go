package a2a

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

func openStore(t *testing.T, path string, clk clock.Clock) (*TaskStore, func()) {
	t.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := newTaskStore(db, "", clk, func(context.Context, beamclaw.EventName, ...slog.Attr) {})
	if err != nil {
		t.Fatal(err)
	}
	return ts, func() { _ = db.Close() }
}

func scoped(caller, agent string) context.Context {
	return withScope(context.Background(), scope{caller: caller, agent: agent})
}

// put creates a task of caller in state st (durable when early).
func put(t *testing.T, ts *TaskStore, id, caller string, st a2a.TaskState, early bool) {
	t.Helper()
	task := &a2a.Task{ID: a2a.TaskID(id), ContextID: "ctx-" + id, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	ts.bind(task.ID, binding{owner: caller, agent: "default", user: "a2a:" + caller, early: early})
	v, err := ts.Create(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	if st != a2a.TaskStateSubmitted {
		task.Status.State = st
		if _, err := ts.Update(context.Background(), &taskstore.UpdateRequest{Task: task, PrevVersion: v}); err != nil {
			t.Fatal(err)
		}
	}
}

// CORE-LIST: a caller lists its own tasks only, newest first, a page at a
// time, with tasks in memory and on disk merged in one order.
func TestListTasksNewestFirstPagedAndOwn(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	ts, closeDB := openStore(t, filepath.Join(t.TempDir(), "db"), clk)
	defer closeDB()
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("t%d", i)
		st := a2a.TaskStateCompleted // on disk
		if i%3 == 0 {
			st = a2a.TaskStateWorking // in memory only
		}
		put(t, ts, id, "peer1", st, false)
		put(t, ts, "other-"+id, "peer2", a2a.TaskStateCompleted, false)
		want = append([]string{id}, want...)
		clk.Advance(time.Second)
	}
	var got []string
	token := ""
	for range 10 {
		resp, err := ts.List(scoped("peer1", "default"), &a2a.ListTasksRequest{PageSize: 3, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		if resp.TotalSize != 7 {
			t.Fatalf("totalSize %d", resp.TotalSize)
		}
		for _, task := range resp.Tasks {
			got = append(got, string(task.ID))
		}
		if token = resp.NextPageToken; token == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	resp, err := ts.List(scoped("peer1", "default"), &a2a.ListTasksRequest{Status: a2a.TaskStateWorking})
	if err != nil || len(resp.Tasks) != 3 {
		t.Fatalf("working filter: %d tasks, %v", len(resp.Tasks), err)
	}
	if _, err := ts.List(scoped("peer1", "default"), &a2a.ListTasksRequest{PageToken: "bogus"}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("bad token: %v", err)
	}
	if resp, _ := ts.List(scoped("peer1", "coder"), &a2a.ListTasksRequest{}); len(resp.Tasks) != 0 {
		t.Fatalf("another agent's list has %d tasks", len(resp.Tasks))
	}
	if _, err := ts.Get(scoped("peer2", "default"), "t1"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("another caller's Get: %v", err)
	}
}

// A task the caller was told about is on disk; one left unfinished by a
// crash is failed at the next start, and still found.
func TestUnfinishedTasksFailAfterACrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	ts, closeDB := openStore(t, path, clk)
	put(t, ts, "acked", "peer1", a2a.TaskStateSubmitted, true)
	put(t, ts, "waiting", "peer1", a2a.TaskStateInputRequired, false)
	put(t, ts, "done", "peer1", a2a.TaskStateCompleted, false)
	put(t, ts, "never-told", "peer1", a2a.TaskStateWorking, false)
	closeDB() // the process dies: memory is gone
	ts, closeDB = openStore(t, path, clk)
	defer closeDB()
	n, err := ts.recoverTasks(nil)
	if err != nil || n != 2 {
		t.Fatalf("recovered %d, %v; want 2", n, err)
	}
	for id, want := range map[string]a2a.TaskState{"acked": a2a.TaskStateFailed, "waiting": a2a.TaskStateFailed, "done": a2a.TaskStateCompleted} {
		st, err := ts.Get(scoped("peer1", "default"), a2a.TaskID(id))
		if err != nil || st.Task.Status.State != want {
			t.Fatalf("%s: %+v %v, want %s", id, st, err, want)
		}
	}
	if _, err := ts.Get(context.Background(), "never-told"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("a task nobody was told about survived: %v", err)
	}
	resp, err := ts.List(scoped("peer1", "default"), &a2a.ListTasksRequest{})
	if err != nil || len(resp.Tasks) != 3 {
		t.Fatalf("list after recovery: %d %v", len(resp.Tasks), err)
	}
}

// Optimistic concurrency: an update from a stale version is refused.
func TestUpdateChecksTheVersion(t *testing.T) {
	ts, closeDB := openStore(t, filepath.Join(t.TempDir(), "db"), clock.System)
	defer closeDB()
	put(t, ts, "t", "peer1", a2a.TaskStateWorking, false)
	task := &a2a.Task{ID: "t", ContextID: "ctx-t", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
	if _, err := ts.Update(context.Background(), &taskstore.UpdateRequest{Task: task, PrevVersion: 1}); !errors.Is(err, taskstore.ErrConcurrentModification) {
		t.Fatalf("stale update: %v", err)
	}
	if v, err := ts.Update(context.Background(), &taskstore.UpdateRequest{Task: task, PrevVersion: 2}); err != nil || v != 3 {
		t.Fatalf("update: %d %v", v, err)
	}
	if _, err := ts.Create(context.Background(), task); !errors.Is(err, taskstore.ErrTaskAlreadyExists) {
		t.Fatalf("second create: %v", err)
	}
}

// Finished tasks past the retention are deleted, with their push configs.
func TestRetentionSweep(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	ts, closeDB := openStore(t, filepath.Join(t.TempDir(), "db"), clk)
	defer closeDB()
	put(t, ts, "old", "peer1", a2a.TaskStateCompleted, false)
	put(t, ts, "old-waiting", "peer1", a2a.TaskStateInputRequired, false)
	clk.Advance(48 * time.Hour)
	put(t, ts, "new", "peer1", a2a.TaskStateCompleted, false)
	n, err := ts.sweep(clk.Now().Add(-24 * time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v", n, err)
	}
	resp, _ := ts.List(scoped("peer1", "default"), &a2a.ListTasksRequest{})
	var ids []string
	for _, task := range resp.Tasks {
		ids = append(ids, string(task.ID))
	}
	if !slices.Equal(ids, []string{"new", "old-waiting"}) {
		t.Fatalf("left %v", ids)
	}
}
