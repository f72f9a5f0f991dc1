package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
)

// Cluster mode: a live session is owned by one node (jsBackend); a
// message for a session owned elsewhere is forwarded there.

// forward hands in to the node that owns its session. An owner that is
// gone leaves its lease to expire: the session is claimed here then, and
// in is sent here.
func (m *Manager) forward(ctx context.Context, owner *OwnedElsewhereError, in beamclaw.Inbound, id string, seed *record) (string, error) {
	deadline := m.clock.Now().Add(2*m.opts.Cluster.LeaseTTL() + time.Second)
	for {
		runID, err := m.opts.Forward(ctx, owner.Node, in)
		if moved, ok := errors.AsType[*OwnedElsewhereError](err); ok {
			if moved.Node != owner.Node && m.clock.Now().Before(deadline) {
				owner = moved // the owner lost it to another node meanwhile: on to that one
				continue
			}
			if moved.Node == owner.Node { // it gave the session up (leaving): claim it here
				err = cluster.ErrNodeGone
			}
		}
		if !errors.Is(err, cluster.ErrNodeGone) {
			return runID, err
		}
		for {
			if m.clock.Now().After(deadline) {
				return "", beamclaw.E("session.Send", beamclaw.KindUnavailable, "the node that owned this conversation is gone; try again in a moment", err)
			}
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-m.clock.After(100 * time.Millisecond):
			}
			l, err := m.acquire(ctx, id, seed)
			if o, ok := errors.AsType[*OwnedElsewhereError](err); ok {
				if o.Node != owner.Node {
					owner = o
					break // a live node took it: forward there
				}
				continue
			}
			if err != nil {
				return "", err
			}
			m.release(l)
			return m.Send(Forwarded(ctx), in) // claimed here
		}
	}
}

// unclaim gives up this node's lease of a session that is no longer live
// here (cluster mode), so another node may take it at once.
func (m *Manager) unclaim(l *lane) {
	if js, ok := m.store.(*jsBackend); ok {
		js.unclaim(l.id, l.claim)
	}
}

// lost stops the lane whose claim this node lost (the lease expired, or
// another node took the session over): at once, its running turn
// canceled, so nothing of it runs or writes here any more. A newer lane
// of the session (a later claim) is left alone.
func (m *Manager) lost(id string, cl *claim) {
	m.mu.Lock()
	l := m.live[id]
	if l == nil || l.claim != cl {
		m.mu.Unlock()
		return
	}
	delete(m.live, id)
	m.mu.Unlock()
	l.mu.Lock()
	for _, r := range append([]*run{l.inflight}, l.queue...) {
		if r != nil && r.cancel != nil {
			r.cancel()
		}
	}
	l.mu.Unlock()
	l.stop()
	m.emit(context.Background(), beamclaw.EventSessionHibernated, id, slog.String("reason", "lease_lost"))
}

type forwardedKey struct{}

// Forwarded marks ctx as a forwarded message's: its node serves it or
// refuses it, and never forwards it again.
func Forwarded(ctx context.Context) context.Context {
	return context.WithValue(ctx, forwardedKey{}, true)
}

func forwarded(ctx context.Context) bool { return ctx.Value(forwardedKey{}) != nil }

// elsewhere sends an operation on a session not live here to the other
// nodes (cluster mode): the session may live on another node than the
// connection that asks. missing is the NotFound error's text when no node
// has it live; a forwarded operation is never sent on again.
func (m *Manager) elsewhere(ctx context.Context, op string, o cluster.OwnerOp, missing string) error {
	if m.opts.Cluster == nil || forwarded(ctx) {
		return beamclaw.E(op, beamclaw.KindNotFound, missing, nil)
	}
	err := m.opts.Cluster.AskOwner(ctx, o)
	if errors.Is(err, cluster.ErrNotLiveAnywhere) {
		return beamclaw.E(op, beamclaw.KindNotFound, missing, nil)
	}
	return err
}

// msgAnswering refuses to delete a session while it answers.
const msgAnswering = "the session is answering now; try again when it is done"

// deleteAtOwner asks the node that has the session live to delete it
// (it refuses while the session answers).
func (m *Manager) deleteAtOwner(ctx context.Context, owner *OwnedElsewhereError) error {
	const op = "session.Delete"
	if m.opts.Cluster == nil || forwarded(ctx) {
		return beamclaw.E(op, beamclaw.KindConflict, "the session is live on node "+owner.Node+"; try again", nil)
	}
	err := m.opts.Cluster.AskOwner(ctx, cluster.OwnerOp{Kind: cluster.OpDelete, Session: owner.Session})
	if refused, ok := errors.AsType[*cluster.RefusedError](err); ok {
		return beamclaw.E(op, beamclaw.KindConflict, refused.Msg, nil)
	}
	if errors.Is(err, cluster.ErrNotLiveAnywhere) {
		return beamclaw.E(op, beamclaw.KindConflict, "the session is live on node "+owner.Node+", which does not answer; try again once its lease expired", nil)
	}
	return err
}

// OwnerOpHere does an operation another node received for a session
// live on this one (cluster.Node.ServeOwnerOps); an error when it is not
// live here (the node that has it answers).
func (m *Manager) OwnerOpHere(ctx context.Context, o cluster.OwnerOp) error {
	ctx = Forwarded(ctx)
	switch o.Kind {
	case cluster.OpDecide:
		if o.Session != "" {
			return m.Decide(ctx, o.Session, o.Approval, o.Origin, o.Decision)
		}
		return m.DecideFor(ctx, o.User, o.Approval, o.Origin, o.Decision)
	case cluster.OpDecideLocal:
		return m.DecideLocal(ctx, o.Session, o.Approval, o.Decision)
	case cluster.OpCancel:
		return m.Cancel(ctx, o.Session, o.Run)
	case cluster.OpCancelResponse:
		return m.CancelResponse(ctx, o.User, o.Response)
	case cluster.OpMarkTurn:
		if m.liveLane(o.Session) == nil {
			return cluster.ErrNotLiveAnywhere
		}
		return m.MarkTurn(ctx, o.Session, o.Run, o.Key)
	case cluster.OpDelete:
		if m.liveLane(o.Session) == nil {
			return cluster.ErrNotLiveAnywhere
		}
		if err := m.Delete(ctx, o.Session); err != nil { // the asking node tells its client why
			return &cluster.RefusedError{Msg: beamclaw.UserMessage(err)}
		}
		return nil
	}
	return fmt.Errorf("session: unknown operation %q from another node", o.Kind)
}

// leaving refuses a session not live here while this node drains: a
// forwarded message is sent back as not this node's, so the node it came
// from claims the session itself; this node's own clients are told to
// try another node.
func (m *Manager) leaving(ctx context.Context, id string) error {
	if forwarded(ctx) {
		return &OwnedElsewhereError{Session: id, Node: m.opts.Cluster.ID()}
	}
	return beamclaw.E("session", beamclaw.KindUnavailable, "this node is leaving its cluster; send it to another node", nil)
}

// Drain readies this node to leave its cluster without the others
// noticing: no new message is taken here (the daemon stopped taking
// forwarded ones first); each session live here is given up as soon as
// its runs ended, so the next node that gets its message claims it at
// once instead of waiting for the lease to expire. Sessions still busy
// when ctx ends are left to the daemon's stop.
func (m *Manager) Drain(ctx context.Context) {
	m.mu.Lock()
	m.draining = true
	m.mu.Unlock()
	for {
		var closed []*lane
		m.mu.Lock()
		for _, l := range m.live {
			if m.closeIdle(l, math.MaxInt64) {
				closed = append(closed, l)
			}
		}
		left := len(m.live)
		m.mu.Unlock()
		for _, l := range closed { // as hibernation closes a lane
			m.unclaim(l)
			m.emit(ctx, beamclaw.EventSessionHibernated, l.id, slog.String("reason", "node_leaving"))
		}
		if left == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-m.clock.After(50 * time.Millisecond):
		}
	}
}

// rejoinWait bounds a rejoin relayed from another node: an approval
// waits at most that long for its answer.
const rejoinWait = 30 * time.Minute

// rejoinElsewhere sends a person's new connection on to the node where
// the session lives (cluster mode): that node asks the waiting approvals
// again and relays the run in flight's events to route until it ends.
// Nothing when no node has the session live or nothing waits there.
func (m *Manager) rejoinElsewhere(sessionID, origin string, route beamclaw.Route) {
	js, ok := m.store.(*jsBackend)
	if !ok || m.opts.Forward == nil || route == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), rejoinWait)
		defer cancel()
		owner, ok := js.owner(ctx, sessionID)
		if !ok || owner == m.opts.Cluster.ID() {
			return
		}
		_, err := m.opts.Forward(ctx, owner, beamclaw.Inbound{Rejoin: true, Session: sessionID, Origin: origin, Route: route})
		if err != nil && beamclaw.KindOf(err) != beamclaw.KindNotFound {
			m.log.Debug("cluster: rejoin on the session's node", "session_id", sessionID, "node", owner, "err", err)
		}
	}()
}

// rejoinHere is a rejoin another node sent on (Inbound.Rejoin): the
// waiting approvals go to in.Route, which follows the run in flight. A
// session with nothing in flight here is KindNotFound.
func (m *Manager) rejoinHere(in beamclaw.Inbound) (string, error) {
	l := m.liveLane(in.Session)
	if l == nil {
		return "", beamclaw.E("session.Rejoin", beamclaw.KindNotFound, "no run in flight here", nil)
	}
	l.mu.Lock()
	r := l.inflight
	l.mu.Unlock()
	if r == nil || r.origin != in.Origin {
		return "", beamclaw.E("session.Rejoin", beamclaw.KindNotFound, "no run in flight here for this origin", nil)
	}
	for _, ev := range m.Rejoin(in.Session, in.Origin, in.Route) {
		in.Route.Deliver(ev)
	}
	return r.id, nil
}
