package session

import (
	"context"
	"errors"
	"log/slog"
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
		if moved, ok := errors.AsType[*OwnedElsewhereError](err); ok && moved.Node != owner.Node && m.clock.Now().Before(deadline) {
			owner = moved // the owner lost it to another node meanwhile: on to that one
			continue
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

// decideElsewhere sends an answer to the other nodes (cluster mode): the
// session that asked may live on another node than the connection that
// answers. A forwarded answer is never sent on again.
func (m *Manager) decideElsewhere(ctx context.Context, op string, d cluster.Decision) error {
	if m.opts.Cluster == nil || forwarded(ctx) {
		return beamclaw.E(op, beamclaw.KindNotFound, "no such approval", nil)
	}
	err := m.opts.Cluster.Decide(ctx, d)
	if errors.Is(err, cluster.ErrNoSuchApproval) {
		return beamclaw.E(op, beamclaw.KindNotFound, "no such approval", nil)
	}
	return err
}

// DecideHere answers an approval another node received for a session
// live on this one (cluster.Node.ServeDecisions).
func (m *Manager) DecideHere(ctx context.Context, d cluster.Decision) error {
	ctx = Forwarded(ctx)
	if d.Session != "" {
		return m.Decide(ctx, d.Session, d.Approval, d.Origin, d.Decision)
	}
	return m.DecideFor(ctx, d.User, d.Approval, d.Origin, d.Decision)
}
