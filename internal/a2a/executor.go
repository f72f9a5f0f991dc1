package a2a

import (
	"context"
	"iter"
	"log/slog"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Texts a peer reads in a task's status.
const (
	msgRunGone  = "This task's run is no longer going (the agent's daemon restarted, or it was canceled). Send the message again as a new task."
	msgReask    = "Please answer yes, no or always."
	msgCanceled = "Canceled at the caller's request."
)

// executor is the SDK's AgentExecutor: an A2A message becomes a turn of a
// beamclaw session, its run's events become the task's events.
type executor struct {
	s *Server
}

var _ a2asrv.AgentExecutor = (*executor)(nil)

// Execute implements a2asrv.AgentExecutor.
func (x *executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			x.start(ctx, ec, yield)
			return
		}
		x.answer(ctx, ec, yield)
	}
}

// start sends a new task's message to the session and relays its run.
func (x *executor) start(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
	s := x.s
	sc, ok := scopeFrom(ctx)
	if !ok {
		yield(nil, a2a.ErrUnauthenticated)
		return
	}
	text, atts, err := inputOf(ec.Message)
	if err != nil {
		yield(nil, err)
		return
	}
	user, err := x.userFor(sc, ec)
	if err != nil {
		yield(nil, err)
		return
	}
	info := ec.TaskInfo()
	// Approvals are bound to the context they were asked on (Decide below
	// names the same origin).
	in := beamclaw.Inbound{Channel: beamclaw.ChannelA2A, UserID: user, AgentID: sc.agent, Content: text, Attachments: atts,
		Origin: originOf(info.ContextID)}
	session := s.opts.Sessions.SessionID(in)
	run := newLiveRun(info, session, s.orphaned)
	in.Route = run
	s.runs.add(run)
	s.tasks.bind(info.TaskID, binding{owner: sc.caller, agent: sc.agent, user: user, session: session, early: sc.early})
	runID, err := s.opts.Sessions.Send(ctx, in)
	if err != nil {
		s.runs.remove(run)
		s.tasks.unbind(info.TaskID)
		yield(nil, err)
		return
	}
	run.setRunID(runID)
	task := a2a.NewSubmittedTask(ec, ec.Message)
	at := s.clock.Now()
	task.Status.Timestamp = &at
	s.emit(ctx, beamclaw.EventA2ATaskCreated, slog.String("task_id", string(info.TaskID)), slog.String("session_id", session),
		slog.String("agent", sc.agent), slog.String("caller", sc.caller))
	t := &translator{info: info, run: run, now: s.clock.Now, quiet: !sc.early, task: task}
	if !t.quiet && !yield(task, nil) {
		run.detach()
		return
	}
	if !x.relay(ctx, run, t, yield) {
		s.tasks.unbind(info.TaskID) // no task was ever told: nothing will create it
	}
}

// userFor is the session user of a new task: the one of its context when
// the caller continues a context of its own, else the caller's.
func (x *executor) userFor(sc scope, ec *a2asrv.ExecutorContext) (string, error) {
	if ec.Message.ContextID != "" {
		cr, ok, err := x.s.tasks.contextOf(ec.ContextID)
		if err != nil {
			return "", err
		}
		if ok {
			if cr.Owner != sc.caller || cr.Agent != sc.agent {
				return "", a2a.NewError(a2a.ErrInvalidParams, "unknown contextId")
			}
			return cr.User, nil
		}
	}
	return x.s.opts.UserID(sc.caller), nil
}

// answer handles the peer's message on a task that waits for input: the
// answer to the run's approval request.
func (x *executor) answer(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
	s := x.s
	info := ec.TaskInfo()
	t := &translator{info: info, now: s.clock.Now}
	run := s.runs.get(info.TaskID)
	if run == nil || !run.attach() {
		yield(t.status(a2a.TaskStateFailed, agentMessage(info, msgRunGone)), nil)
		return
	}
	t.run = run
	approval := run.pending()
	d, ok := decisionOf(ec.Message)
	if approval != "" && !ok {
		run.detach()
		yield(t.status(a2a.TaskStateInputRequired, agentMessage(info, msgReask)), nil)
		return
	}
	if approval != "" {
		if err := s.opts.Sessions.Decide(ctx, run.session, approval, originOf(info.ContextID), d); err != nil {
			// Already decided (a timeout denied it): the run goes on, and
			// its events say what happened.
			s.log.LogAttrs(ctx, slog.LevelInfo, "a2a approval answer not applied", slog.String("task_id", string(info.TaskID)),
				slog.String("approval_id", approval), slog.String("reason", beamclaw.UserMessage(err)))
		}
	}
	t.working = true
	if !yield(t.status(a2a.TaskStateWorking, nil), nil) {
		run.detach()
		return
	}
	x.relay(ctx, run, t, yield)
}

// relay yields the run's events until the execution ends: at a terminal
// state, at input-required, or when the SDK stops listening. It reports
// whether it yielded anything.
func (x *executor) relay(ctx context.Context, run *liveRun, t *translator, yield func(a2a.Event, error) bool) (yielded bool) {
	var buf []beamclaw.RunEvent
	for {
		var closed bool
		buf, closed = run.take(buf)
		for _, ev := range buf {
			evs, stop := t.events(ev)
			for _, e := range evs {
				yielded = true
				if !yield(e, nil) {
					run.detach()
					return yielded
				}
			}
			if stop {
				if ev.Terminal() {
					x.s.runs.remove(run)
					run.close()
					return yielded
				}
				run.detach()
				return yielded
			}
		}
		if closed {
			return yielded // canceled: the SDK ends the execution with the cancel
		}
		select {
		case <-ctx.Done():
			run.detach()
			return yielded
		case <-run.wake():
		}
	}
}

// Cancel implements a2asrv.AgentExecutor: the run is stopped (and its
// pending approval denied), and the task is canceled.
func (x *executor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		s := x.s
		info := ec.TaskInfo()
		if run := s.runs.get(info.TaskID); run != nil {
			s.runs.remove(run)
			runID, approval := run.close()
			if approval != "" {
				_ = s.opts.Sessions.Decide(ctx, run.session, approval, originOf(info.ContextID), beamclaw.Deny)
			}
			if runID != "" {
				if err := s.opts.Sessions.Cancel(ctx, run.session, runID); err != nil {
					s.log.LogAttrs(ctx, slog.LevelInfo, "a2a cancel: the run goes on, detached from its task",
						slog.String("task_id", string(info.TaskID)), slog.String("reason", beamclaw.UserMessage(err)))
				}
			}
		}
		t := &translator{info: info, now: s.clock.Now}
		yield(t.status(a2a.TaskStateCanceled, agentMessage(info, msgCanceled)), nil)
	}
}
