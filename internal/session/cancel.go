package session

import (
	"context"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
)

// MsgCanceled ends a run its caller canceled (the EvError's text).
const MsgCanceled = "the run was canceled"

// Cancel stops run runID of session sessionID: a queued run never
// starts (its message still joins the history, unanswered), a running
// one has its context canceled, which aborts the model call or tool in
// progress. Either way its route gets an EvError saying it was canceled.
// A KindNotFound error means the run already ended or is unknown.
func (m *Manager) Cancel(ctx context.Context, sessionID, runID string) error {
	const op = "session.Cancel"
	l := m.liveLane(sessionID)
	if l == nil { // in a cluster, it may run on another node
		return m.elsewhere(ctx, op, cluster.OwnerOp{Kind: cluster.OpCancel, Session: sessionID, Run: runID}, "no such run in progress")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range append([]*run{l.inflight}, l.queue...) {
		if r == nil || r.id != runID || r.canceled {
			continue
		}
		r.canceled = true
		if r.cancel != nil {
			r.cancel()
		}
		return nil
	}
	return beamclaw.E(op, beamclaw.KindNotFound, "no such run in progress", nil)
}

// runContext is the context r runs under: canceled by Cancel.
func (l *lane) runContext(ctx context.Context, r *run) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	l.mu.Lock()
	r.cancel = cancel
	if r.canceled {
		cancel()
	}
	l.mu.Unlock()
	return ctx, cancel
}

// endCanceled answers r, canceled before or while it ran, and reports
// whether it was.
func (l *lane) endCanceled(r *run) bool {
	l.mu.Lock()
	canceled := r.canceled
	l.mu.Unlock()
	if !canceled {
		return false
	}
	if !r.route.ended() {
		l.routeOf(r).Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: r.id, SessionID: l.id, Text: MsgCanceled})
	}
	l.finish(r)
	return true
}
