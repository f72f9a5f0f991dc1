package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// In a cluster a task runs on the node that got its message, which its
// record names (Node). The other nodes read it from the cluster's store,
// but while it runs its newest state (working, streamed artifacts) is in
// that node's memory: a tasks/get elsewhere asks it (TaskStore.newest,
// LiveTask). A cancel that reaches another node is done where
// the run is (CancelHere, asked through Options.CancelElsewhere): the
// run stops, the caller's stream there ends canceled, and the canceled
// task is stored before the asking node answers with it.

// LiveTask is what another node's TaskStore asks this one for while
// this node runs task id: its newest record (Options.TaskElsewhere).
func (s *Server) LiveTask(id string) ([]byte, bool) { return s.tasks.live(a2a.TaskID(id)) }

// CancelHere cancels the task id when its run is live on this node, as
// if its caller had asked this node; ok false when it is not.
func (s *Server) CancelHere(ctx context.Context, id string) (ok bool, err error) {
	tid := a2a.TaskID(id)
	if s.runs.get(tid) == nil {
		return false, nil
	}
	rec, found, err := s.tasks.current(tid)
	if err != nil || !found {
		return false, err
	}
	ctx = withScope(ctx, scope{caller: rec.Owner, agent: rec.Agent, method: "cluster", path: "cancel_task"})
	_, err = s.handler.CancelTask(ctx, &a2a.CancelTaskRequest{ID: tid})
	return true, err
}

// SubscribeHere relays the events of task id, as a caller who
// resubscribed here would get them, each as an a2a.StreamResponse's
// JSON, while its run is live on this node (an error when it is not).
func (s *Server) SubscribeHere(ctx context.Context, id string, send func([]byte) bool) error {
	tid := a2a.TaskID(id)
	if s.runs.get(tid) == nil {
		return errNotRunHere
	}
	rec, found, err := s.tasks.current(tid)
	if err != nil || !found {
		return errors.Join(errNotRunHere, err)
	}
	ctx = withScope(ctx, scope{caller: rec.Owner, agent: rec.Agent, method: "cluster", path: "subscribe_task"})
	for ev, err := range s.handler.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: tid}) {
		if err != nil {
			return err
		}
		data, err := json.Marshal(a2a.StreamResponse{Event: ev})
		if err != nil {
			return err
		}
		if !send(data) {
			return nil
		}
	}
	return nil
}

var errNotRunHere = errors.New("a2a: the task does not run on this node")

// relayHandler is the SDK's handler, but for a resubscription to a task
// that runs on another node: its events come from there, live.
type relayHandler struct {
	a2asrv.RequestHandler
	s *Server
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (h *relayHandler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	node := h.s.runningElsewhere(req)
	if node == "" {
		return h.RequestHandler.SubscribeToTask(ctx, req)
	}
	return func(yield func(a2a.Event, error) bool) {
		first := true
		for data, err := range h.s.opts.SubscribeElsewhere(ctx, node, string(req.ID)) {
			if err != nil { // a peer reads no node's name nor the cluster's errors
				h.s.log.LogAttrs(ctx, slog.LevelInfo, "a2a resubscribe: the relay from the task's node ended",
					slog.String("task_id", string(req.ID)), slog.String("node", node), slog.Any("err", err))
				if first { // it does not run there (any more), or its node is gone
					err = fmt.Errorf("%w: no active execution", a2a.ErrTaskNotFound)
				} else {
					err = a2a.NewError(a2a.ErrInternalError, "the task's events stopped coming; get the task for its state")
				}
				yield(nil, err)
				return
			}
			first = false
			var sr a2a.StreamResponse
			if err := json.Unmarshal(data, &sr); err != nil {
				yield(nil, fmt.Errorf("a2a: an event relayed from node %s: %w", node, err))
				return
			}
			if !yield(sr.Event, nil) {
				return
			}
		}
	}
}

// runningElsewhere is the node that runs the unfinished task req names
// when that is another node ("" when this node is to answer).
func (s *Server) runningElsewhere(req *a2a.SubscribeToTaskRequest) string {
	if req == nil || s.runs.get(req.ID) != nil {
		return ""
	}
	rec, found, err := s.tasks.current(req.ID)
	if err != nil || !found || rec.Node == "" || rec.Node == s.opts.Node || rec.State.Terminal() {
		return ""
	}
	return rec.Node
}

// cancelElsewhere has the node that runs task rec cancel it, and returns
// the task as that node left it; ok false when this node is to cancel it
// itself (alone, its own task, a finished one, or its node does not run
// it any more).
func (s *Server) cancelElsewhere(ctx context.Context, rec *taskRecord) (task *a2a.Task, ok bool) {
	if s.opts.CancelElsewhere == nil || rec.Node == "" || rec.Node == s.opts.Node || rec.State.Terminal() {
		return nil, false
	}
	id := rec.ID
	if err := s.opts.CancelElsewhere(ctx, rec.Node, string(id)); err != nil {
		s.log.LogAttrs(ctx, slog.LevelInfo, "a2a cancel: the task's node does not run it; canceled here",
			slog.String("task_id", string(id)), slog.String("node", rec.Node), slog.String("reason", beamclaw.UserMessage(err)))
		return nil, false
	}
	rec, found, err := s.tasks.readLatest(id)
	if err != nil || !found || !rec.State.Terminal() { // its cancel there failed: this node tries
		return nil, false
	}
	task, err = rec.task()
	return task, err == nil
}
