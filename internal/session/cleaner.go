package session

import (
	"context"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// hibernator closes idle lanes: every quarter of IdleHibernate (between
// 10 ms and 30 s) it hibernates those idle for IdleHibernate. One
// goroutine for every session: a session waiting for its next message
// holds none.
func (m *Manager) hibernator(ctx context.Context) error {
	tick := min(max(m.opts.IdleHibernate/4, 10*time.Millisecond), 30*time.Second)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.clock.After(tick):
			m.hibernateIdle(ctx)
		}
	}
}

// clean is the session_cleaner: every CleanupInterval it deletes sessions
// idle longer than TTL (live ones only when idle).
func (m *Manager) clean(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.clock.After(m.opts.CleanupInterval):
			if _, err := m.Expire(ctx); err != nil {
				m.log.LogAttrs(ctx, slog.LevelWarn, "session cleanup failed", slog.Any("err", err))
			}
		}
	}
}

// Expire deletes the sessions idle longer than TTL now and returns how
// many it deleted. The cleaner calls it every CleanupInterval.
func (m *Manager) Expire(ctx context.Context) (int, error) {
	cutoff := m.clock.Now().Add(-m.opts.TTL)
	ids, err := m.store.expired(cutoff)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	var gone, closed []string
	m.mu.Lock()
	for _, id := range ids {
		if l := m.live[id]; l != nil {
			if !m.closeIdle(l, cutoff.UnixNano()) {
				continue
			}
			closed = append(closed, id)
		}
		gone = append(gone, id)
	}
	err = m.store.remove(gone)
	m.mu.Unlock()
	if err != nil {
		return 0, err
	}
	for _, id := range closed {
		m.emit(ctx, beamclaw.EventSessionEnd, id, slog.String("reason", "expired"))
	}
	for _, id := range gone {
		m.emit(ctx, beamclaw.EventSessionExpired, id)
	}
	return len(gone), nil
}
