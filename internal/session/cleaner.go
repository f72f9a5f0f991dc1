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

// clean is the session_cleaner: every CleanupInterval it archives the
// sessions idle longer than TTL and deletes those archived longer than
// Retention (Expire).
func (m *Manager) clean(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.clock.After(m.opts.CleanupInterval):
			if _, _, err := m.Expire(ctx); err != nil {
				m.log.LogAttrs(ctx, slog.LevelWarn, "session cleanup failed", slog.Any("err", err))
			}
		}
	}
}

// Expire archives the sessions idle longer than TTL (live ones only when
// idle): an archived session keeps its history, is listed with
// --archived, and its next message (or a resume) makes it active again.
// With a Retention, sessions archived longer than it are deleted. It
// returns how many sessions it archived and deleted.
func (m *Manager) Expire(ctx context.Context) (archived, deleted int, err error) {
	now := m.clock.Now()
	sums, err := m.store.summaries()
	if err != nil {
		return 0, 0, err
	}
	cutoff := now.Add(-m.opts.TTL)
	var stale, purge []string
	for _, s := range sums {
		switch {
		case s.Archived.IsZero() && m.opts.TTL > 0 && s.Updated.Before(cutoff):
			stale = append(stale, s.ID)
		case !s.Archived.IsZero() && m.opts.Retention > 0 && s.Archived.Before(now.Add(-m.opts.Retention)):
			purge = append(purge, s.ID)
		}
	}
	if len(stale) == 0 && len(purge) == 0 {
		return 0, 0, nil
	}
	var archive, closed, gone []string
	var held []*lane // their messages wait for the store's writes; other sessions' do not
	m.mu.Lock()
	for _, id := range stale {
		if l := m.live[id]; l != nil {
			if !m.closeIdle(l, cutoff.UnixNano()) {
				continue // busy, or active since the scan
			}
			closed = append(closed, id)
		}
		archive, held = append(archive, id), append(held, m.hold(id))
	}
	for _, id := range purge {
		if m.live[id] == nil { // one live again since the scan is kept
			gone, held = append(gone, id), append(held, m.hold(id))
		}
	}
	m.mu.Unlock()
	err = m.store.setArchived(archive, now)
	if err == nil && len(gone) > 0 {
		err = m.store.remove(gone)
	}
	m.unhold(held...)
	if err != nil {
		return 0, 0, err
	}
	for _, id := range closed {
		m.emit(ctx, beamclaw.EventSessionEnd, id, slog.String("reason", "expired"))
	}
	for _, id := range archive {
		m.emit(ctx, beamclaw.EventSessionExpired, id, slog.String("outcome", "archived"))
	}
	for _, id := range gone {
		m.emit(ctx, beamclaw.EventSessionExpired, id, slog.String("outcome", "deleted"))
	}
	return len(archive), len(gone), nil
}
