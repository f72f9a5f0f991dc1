package session

import (
	"context"
	"errors"
	"log/slog"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// acquire finds the live lane of id or revives it from the backend (a new
// session when seed is set and nothing is stored). The caller must
// release the lane; until then it is not hibernated.
func (m *Manager) acquire(ctx context.Context, id string, seed *record) (*lane, error) {
	for {
		m.mu.Lock()
		if m.stopped {
			m.mu.Unlock()
			return nil, beamclaw.E("session", beamclaw.KindUnavailable, "the daemon is stopping", nil)
		}
		l := m.live[id]
		if l == nil && m.draining {
			m.mu.Unlock()
			return nil, m.leaving(ctx, id)
		}
		if l == nil {
			evicted := m.makeRoom()
			l = newLane(m, id)
			l.sends = 1
			m.live[id] = l
			m.mu.Unlock()
			if evicted != nil {
				m.unclaim(evicted)
				m.emit(ctx, beamclaw.EventSessionHibernated, evicted.id, slog.String("reason", "max_live_sessions"))
			}
			if err := m.revive(ctx, l, seed); err != nil {
				m.mu.Lock()
				delete(m.live, id)
				m.mu.Unlock()
				m.unclaim(l) // claimed, then not found or not adopted
				l.loadErr = err
				close(l.ready)
				return nil, err
			}
			close(l.ready)
			return l, nil
		}
		m.mu.Unlock()
		select {
		case <-l.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if l.loadErr != nil {
			continue
		}
		l.mu.Lock()
		if !l.closed {
			l.sends++
			l.mu.Unlock()
			return l, nil
		}
		l.mu.Unlock()
	}
}

func (m *Manager) release(l *lane) {
	l.mu.Lock()
	l.sends--
	l.last = m.clock.Now()
	l.mu.Unlock()
}

// revive loads l's state and starts its supervisor.
func (m *Manager) revive(ctx context.Context, l *lane, seed *record) error {
	var st stored
	var found bool
	var err error
	if js, ok := m.store.(*jsBackend); ok {
		if seed == nil { // a resume: nothing is claimed (nor fenced) for a session that does not exist
			if _, ok, err := js.summary(l.id); err == nil && !ok {
				return notFound("session", l.id)
			}
		}
		st, found, l.claim, err = js.claimSession(l.id) // cluster mode: this node owns it from now on
	} else {
		st, found, err = m.store.load(l.id)
	}
	if _, ok := errors.AsType[*OwnedElsewhereError](err); ok {
		return err
	}

	if err != nil {
		m.log.Warn("a session could not be loaded", "session_id", l.id, "err", err)
		return loadError("session", err)
	}
	now := m.clock.Now()
	switch {
	case found:
		l.rec, l.stored, l.history = st.rec, true, st.history
		for _, e := range st.seen {
			l.remember(e)
		}
		if len(st.pending) > 0 {
			if err := l.adoptPending(st); err != nil {
				return loadError("session", err)
			}
		}
		m.emit(ctx, beamclaw.EventSessionRestored, l.id, slog.Int("message_count", len(l.history)))
	case seed == nil:
		return notFound("session", l.id)
	default:
		l.rec = *seed
		l.rec.Created, l.rec.Updated = now, now
		m.emit(ctx, beamclaw.EventSessionStart, l.id, slog.String("user_id", seed.UserID),
			slog.String("agent_id", seed.AgentID), slog.String("channel", string(seed.Channel)))
	}
	l.last = now
	return nil
}

// adoptPending moves messages acknowledged before a stop, whose runs never
// started, into history: they are part of the conversation.
func (l *lane) adoptPending(st stored) error {
	rec := l.rec
	rec.Updated = l.m.clock.Now()
	c := change{from: rec.NextSeq, msgs: st.pending, unpend: st.seqs}
	rec.NextSeq += uint64(len(st.pending))
	rec.Messages += len(st.pending)
	c.rec = rec
	if err := l.m.apply(l, c); err != nil {
		return err
	}
	l.rec = rec
	l.history = append(l.history, st.pending...)
	return nil
}

// closeIdle takes l out of the registry when it is idle and was last
// active before cutoff. The caller holds m.mu.
func (m *Manager) closeIdle(l *lane, cutoff int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || !l.idle() || l.last.UnixNano() > cutoff {
		return false
	}
	l.closed = true
	if m.live[l.id] == l {
		delete(m.live, l.id)
	}
	return true
}

// hibernateIdle closes every lane idle for IdleHibernate: its state is
// in the backend, the next message revives it.
func (m *Manager) hibernateIdle(ctx context.Context) {
	cutoff := m.clock.Now().Add(-m.opts.IdleHibernate).UnixNano()
	var closed []*lane
	m.mu.Lock()
	for _, l := range m.live {
		if m.closeIdle(l, cutoff) {
			closed = append(closed, l)
		}
	}
	m.mu.Unlock()
	for _, l := range closed {
		m.unclaim(l)
		m.emit(ctx, beamclaw.EventSessionHibernated, l.id)
	}
}

// makeRoom hibernates the least recently used idle lane when the
// registry holds MaxLive lanes. Busy lanes are never closed: past the cap
// with every lane busy, the registry grows until one is idle again. The
// caller holds m.mu.
func (m *Manager) makeRoom() (hibernated *lane) {
	if m.opts.MaxLive <= 0 || len(m.live) < m.opts.MaxLive {
		return nil
	}
	var lru *lane
	var oldest int64
	for _, l := range m.live {
		l.mu.Lock()
		last, ok := l.last.UnixNano(), !l.closed && l.idle()
		l.mu.Unlock()
		if ok && (lru == nil || last < oldest) {
			lru, oldest = l, last
		}
	}
	if lru != nil && m.closeIdle(lru, oldest) {
		return lru
	}
	return nil
}

// forget drops l from the registry after its supervisor ended.
func (m *Manager) forget(ctx context.Context, l *lane) {
	m.mu.Lock()
	if m.live[l.id] == l {
		delete(m.live, l.id)
	}
	m.mu.Unlock()
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	l.stop()
	m.unclaim(l)
	if !closed {
		m.emit(ctx, beamclaw.EventSessionEnd, l.id, slog.String("reason", "stopped"))
	}
}

// loadError is a session that could not be read: unavailable, or, when
// the database is damaged or cannot be used, the store's own kind (a 503,
// not a 502).
func loadError(op string, err error) error {
	kind := beamclaw.KindUnavailable
	if beamclaw.KindOf(err) == beamclaw.KindStorage {
		kind = beamclaw.KindStorage
	}
	return beamclaw.E(op, kind, "could not load the session", err)
}

// errHeld is the load error of a hold's stand-in lane: whoever waited on
// it looks the session up again.
var errHeld = errors.New("session: held while it was archived or deleted")

// hold keeps session id from being revived while the store archives or
// deletes it out of the registry's lock: a lane that never becomes ready
// stands in for it (busy, so never hibernated), and a message for it
// waits, then revives what the store holds after. Other sessions go on
// meanwhile. The caller holds m.mu and ends the hold with unhold.
func (m *Manager) hold(id string) *lane {
	g := newLane(m, id)
	g.sends = 1
	m.live[id] = g
	return g
}

// unhold ends holds: whoever waits on one looks its session up again.
func (m *Manager) unhold(gates ...*lane) {
	m.mu.Lock()
	for _, g := range gates {
		if m.live[g.id] == g {
			delete(m.live, g.id)
		}
	}
	m.mu.Unlock()
	for _, g := range gates {
		g.loadErr = errHeld
		close(g.ready)
	}
}
