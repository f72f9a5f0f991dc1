package session

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// MaintenanceOptions configure session maintenance (spec:
// bc_session_maintenance, config core.maintenance). Every Scan it looks at
// the stored sessions and, through each session's lane (never beside a
// turn):
//   - flushes the memory of a session PreExpiry before the TTL archives it
//     (once per stretch of inactivity), so its durable facts reach the
//     workspace's memory instead of leaving with the session;
//   - compacts a session idle for IdleAfter whose history is above
//     IdleThresholdPct of the context window, to IdleTargetPct;
//   - once a night inside QuietHours (UTC), flushes and compacts the
//     sessions with at least NightlyMinMessages new messages since the
//     last night.
type MaintenanceOptions struct {
	Scan                            time.Duration // 0: off
	IdleAfter                       time.Duration // 0: no idle compaction
	IdleThresholdPct, IdleTargetPct int
	QuietHours                      [2]int // [start, end) UTC hours; {0, 0}: no nightly pass
	NightlyMinMessages              int
	PreExpiry                       time.Duration // 0: no pre-expiry flush
}

// maxMaintainPerScan bounds the maintenance runs of one scan (each may
// cost model calls); the rest wait for the next scan.
const maxMaintainPerScan = 16

// maintainer remembers what it did, per session, keyed by the session's
// last activity: a session that becomes active again is due again.
type maintainer struct {
	mu        sync.Mutex
	flushed   map[string]time.Time // pre-expiry flushes: session -> Updated it was done for
	compacted map[string]time.Time // idle compactions: session -> Updated
	nightly   map[string]int       // messages at the last nightly pass
	lastNight string               // the date (UTC) of the last nightly pass
}

// maintenance is the bc_session_maintenance service.
func (m *Manager) maintenance(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.clock.After(m.opts.Maintenance.Scan):
			if err := m.maintainOnce(ctx); err != nil && ctx.Err() == nil {
				m.log.LogAttrs(ctx, slog.LevelWarn, "session maintenance failed", slog.Any("err", err))
			}
		}
	}
}

// maintainOnce is one scan.
func (m *Manager) maintainOnce(ctx context.Context) error {
	o := m.opts.Maintenance
	mt := &m.maint
	now := m.clock.Now()
	sums, err := m.store.summaries()
	if err != nil {
		return err
	}
	budget := maxMaintainPerScan
	nightly := o.QuietHours != [2]int{} && inHours(o.QuietHours, now.UTC().Hour())
	date := now.UTC().Format(time.DateOnly)
	mt.mu.Lock()
	nightly = nightly && mt.lastNight != date
	mt.mu.Unlock()
	var nightlyIDs []string
	for _, s := range sums {
		if !s.Archived.IsZero() || budget == 0 {
			continue
		}
		idle := now.Sub(s.Updated)
		switch {
		case o.PreExpiry > 0 && m.opts.TTL > 0 && idle >= m.opts.TTL-o.PreExpiry && idle < m.opts.TTL && !mt.done(mt.flushed, s):
			budget--
			if m.maintainSession(ctx, s, loop.Maintenance{Flush: true}, "") {
				mt.mark(mt.flushed, s)
				m.emit(ctx, beamclaw.EventMaintenancePreExpiryFlush, s.ID)
			}
		case o.IdleAfter > 0 && idle >= o.IdleAfter && !mt.done(mt.compacted, s):
			budget--
			mt.mark(mt.compacted, s)
			m.maintainSession(ctx, s, loop.Maintenance{Compact: true, ThresholdPct: o.IdleThresholdPct,
				TargetPct: o.IdleTargetPct}, "idle")
		case nightly && s.Messages-mt.seen(s.ID) >= max(o.NightlyMinMessages, 1):
			nightlyIDs = append(nightlyIDs, s.ID)
		}
	}
	if !nightly {
		return nil
	}
	mt.mu.Lock()
	mt.lastNight = date
	mt.mu.Unlock()
	m.emit(ctx, beamclaw.EventMaintenanceNightlyStart, "", slog.Int("session_count", len(nightlyIDs)))
	flushed := 0
	for _, s := range sums {
		if budget == 0 || !contains(nightlyIDs, s.ID) {
			continue
		}
		budget--
		if m.maintainSession(ctx, s, loop.Maintenance{Flush: true, Compact: true,
			ThresholdPct: o.IdleThresholdPct, TargetPct: o.IdleTargetPct}, "nightly") {
			flushed++
			mt.mu.Lock()
			mt.nightly[s.ID] = s.Messages
			mt.mu.Unlock()
		}
	}
	m.emit(ctx, beamclaw.EventMaintenanceNightlyComplete, "", slog.Int("flushed_count", flushed))
	return nil
}

// maintainSession runs mt on session s through its lane and waits for it;
// reason names a compaction for the maintenance_compact_complete event.
func (m *Manager) maintainSession(ctx context.Context, s Summary, mt loop.Maintenance, reason string) bool {
	l, err := m.acquire(ctx, s.ID, nil)
	if err != nil {
		return false
	}
	wait := NewWaitRoute()
	r := &run{id: m.newID("run"), channel: beamclaw.ChannelScheduler, route: newOnceRoute(wait), noAsk: true, maintain: &mt,
		autonomy: beamclaw.ReadOnly}
	queued := l.enqueue(r)
	m.release(l)
	if !queued {
		return false
	}
	ev, err := wait.Wait(ctx)
	if err != nil || ev.Type != beamclaw.EvFinal {
		return false
	}
	if reason != "" && ev.Text == "compacted" {
		m.emit(ctx, beamclaw.EventMaintenanceCompactComplete, s.ID, slog.String("reason", reason))
	}
	return true
}

// enqueue queues a maintenance run behind the session's other runs; false
// when the lane is gone.
func (l *lane) enqueue(r *run) bool {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return false
	}
	r.start, r.epoch = len(l.history), l.epoch
	l.queue = append(l.queue, r)
	l.mu.Unlock()
	l.activate()
	return true
}

func (mt *maintainer) done(seen map[string]time.Time, s Summary) bool {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	at, ok := seen[s.ID]
	return ok && !s.Updated.After(at)
}

func (mt *maintainer) mark(seen map[string]time.Time, s Summary) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	seen[s.ID] = s.Updated
}

func (mt *maintainer) seen(id string) int {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	return mt.nightly[id]
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// inHours reports whether hour h is in [start, end) (wrapping past midnight
// when start > end).
func inHours(r [2]int, h int) bool {
	if r[0] <= r[1] {
		return h >= r[0] && h < r[1]
	}
	return h >= r[0] || h < r[1]
}

// WaitRoute is a Route that keeps a run's terminal event, for a caller
// that waits for the answer (scheduled turns, maintenance).
type WaitRoute struct {
	once sync.Once
	done chan struct{}
	ev   beamclaw.RunEvent
}

// NewWaitRoute returns an empty WaitRoute.
func NewWaitRoute() *WaitRoute { return &WaitRoute{done: make(chan struct{})} }

// Deliver implements beamclaw.Route.
func (w *WaitRoute) Deliver(ev beamclaw.RunEvent) {
	if ev.Type != beamclaw.EvFinal && ev.Type != beamclaw.EvError {
		return
	}
	w.once.Do(func() {
		w.ev = ev
		close(w.done)
	})
}

// Wait returns the terminal event once it came, or ctx's error.
func (w *WaitRoute) Wait(ctx context.Context) (beamclaw.RunEvent, error) {
	select {
	case <-w.done:
		return w.ev, nil
	case <-ctx.Done():
		return beamclaw.RunEvent{}, ctx.Err()
	}
}
