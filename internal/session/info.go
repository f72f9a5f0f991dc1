package session

import (
	"context"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// Info describes a session (for /context and the control API).
type Info struct {
	ID       string
	UserID   string
	AgentID  string
	Channel  beamclaw.Channel // the channel that created it
	Messages int
	Tokens   int // estimated, about 4 bytes a token
	Model    string
	Window   int // the model's context window in tokens
	Live     bool
	Queued   int // runs waiting (live sessions)
	Created  time.Time
	Updated  time.Time
}

// History returns a copy of a session's history, live or stored.
func (m *Manager) History(sessionID string) ([]beamclaw.Message, error) {
	if l := m.liveLane(sessionID); l != nil {
		return l.snapshot(), nil
	}
	st, found, err := m.store.load(sessionID)
	if err != nil {
		return nil, loadError("session.History", err)
	}
	if !found {
		return nil, notFound("session.History", sessionID)
	}
	return append(st.history, st.pending...), nil
}

// Info describes a session without reviving it.
func (m *Manager) Info(sessionID string) (Info, error) {
	var (
		rec  record
		hist []beamclaw.Message
		info Info
	)
	if l := m.liveLane(sessionID); l != nil {
		l.mu.Lock()
		rec, hist = l.rec, l.history
		info.Live, info.Queued = true, len(l.queue)
		if l.inflight != nil {
			info.Queued++
		}
		l.mu.Unlock()
	} else {
		st, found, err := m.store.load(sessionID)
		if err != nil {
			return Info{}, loadError("session.Info", err)
		}
		if !found {
			return Info{}, notFound("session.Info", sessionID)
		}
		rec, hist = st.rec, st.history
	}
	info.ID, info.UserID, info.AgentID, info.Channel = sessionID, rec.UserID, rec.AgentID, rec.Channel
	info.Created, info.Updated = rec.Created, rec.Updated
	info.Messages, info.Tokens = len(hist), loop.EstimateTokens(hist)
	info.Model, info.Window = m.opts.Engine.AgentWindow(rec.AgentID)
	return info, nil
}

// Exists reports whether a session is live or stored and active (false once it
// was archived or deleted, and for an ephemeral run's id). An unreadable store counts as
// existing: whoever asks (the sandbox's reaper) must not remove on doubt.
func (m *Manager) Exists(sessionID string) bool {
	m.mu.Lock()
	_, live := m.live[sessionID]
	m.mu.Unlock()
	if live {
		return true
	}
	st, found, err := m.store.load(sessionID)
	return err != nil || (found && st.rec.Archived.IsZero())
}

// Stats counts live and hibernated sessions.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	live := len(m.live)
	m.mu.Unlock()
	stored := m.store.count()
	return Stats{Live: live, Stored: stored, Hibernated: max(0, stored-live)}
}

func (m *Manager) liveLane(id string) *lane {
	m.mu.Lock()
	l := m.live[id]
	m.mu.Unlock()
	if l == nil {
		return nil
	}
	<-l.ready
	if l.loadErr != nil {
		return nil
	}
	return l
}

// Context reports the token gauge of /context: tokens used, the model's
// window and the message count (zeros for a session not started yet).
func (m *Manager) Context(_ context.Context, sessionID string) (used, window, messages int, err error) {
	info, err := m.Info(sessionID)
	if beamclaw.KindOf(err) == beamclaw.KindNotFound {
		return 0, 0, 0, nil
	}
	if err != nil {
		return 0, 0, 0, err
	}
	return info.Tokens, info.Window, info.Messages, nil
}
