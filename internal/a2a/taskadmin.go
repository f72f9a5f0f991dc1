package a2a

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// taskStates are the states a task list may be filtered by, by name.
var taskStates = []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired,
	a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected}

// Tasks lists every caller's tasks for the operator (the admin API),
// newest first: of agent ("" any), in state ("" any, else a name as
// A2ATask.State says it), at most limit (0: all).
func (s *Server) Tasks(_ context.Context, agent, state string, limit int) ([]protocol.A2ATask, error) {
	const op = "a2a.Tasks"
	want := a2a.TaskStateUnspecified
	if state != "" {
		for _, st := range taskStates {
			if stateName(st) == state {
				want = st
			}
		}
		if want == a2a.TaskStateUnspecified {
			names := make([]string, len(taskStates))
			for i, st := range taskStates {
				names[i] = stateName(st)
			}
			return nil, beamclaw.E(op, beamclaw.KindInvalid, fmt.Sprintf("state %q: want one of %s", state, strings.Join(names, ", ")), nil)
		}
	}
	all, err := s.tasks.everyones(agent, want)
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	out := make([]protocol.A2ATask, 0, len(all))
	for _, l := range all {
		rec, ok, err := s.tasks.current(l.id)
		if err != nil {
			return nil, err
		}
		if ok { // else deleted meanwhile
			out = append(out, taskWire(rec, false))
		}
	}
	return out, nil
}

// Task is one task, with its history and artifacts, for the operator.
func (s *Server) Task(_ context.Context, id string) (protocol.A2ATask, error) {
	rec, ok, err := s.tasks.current(a2a.TaskID(id))
	if err != nil {
		return protocol.A2ATask{}, err
	}
	if !ok {
		return protocol.A2ATask{}, beamclaw.E("a2a.Task", beamclaw.KindNotFound, "no such task", nil)
	}
	return taskWire(rec, true), nil
}

// everyones lists the tasks of every caller that pass the filters, newest
// first: those in memory and those on disk (the whole index).
func (s *TaskStore) everyones(agent string, state a2a.TaskState) ([]listed, error) {
	return s.collect(nil, func(_, a string, e indexEntry) bool {
		return (agent == "" || a == agent) && (state == a2a.TaskStateUnspecified || e.State == state)
	})
}

// taskWire is rec as the operator sees it; full adds its history and
// artifacts.
func taskWire(rec *taskRecord, full bool) protocol.A2ATask {
	out := protocol.A2ATask{ID: string(rec.ID), ContextID: rec.Context, Agent: rec.Agent, Caller: rec.Owner, User: rec.User,
		Session: rec.Session, State: stateName(rec.State), Created: rec.Created.UTC(), Updated: rec.Updated.UTC()}
	t, err := rec.task()
	if err != nil {
		return out // the record's own fields still say what it is
	}
	out.Status = textOf(t.Status.Message)
	if !full {
		return out
	}
	for _, m := range t.History {
		if m == nil {
			continue
		}
		role := "agent"
		if m.Role == a2a.MessageRoleUser {
			role = "user"
		}
		out.History = append(out.History, protocol.A2ATaskMessage{Role: role, Text: textOf(m)})
	}
	for _, a := range t.Artifacts {
		if a != nil {
			out.Artifacts = append(out.Artifacts, textOfParts(a.Parts))
		}
	}
	return out
}
