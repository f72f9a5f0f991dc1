package session

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/setting"
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
	QuietHours                      setting.HourRange // [start, end) UTC hours; {0, 0}: no nightly pass
	NightlyMinMessages              int
	PreExpiry                       time.Duration // 0: no pre-expiry flush
}

// maxMaintainPerScan bounds the maintenance runs of one scan (each may
// cost model calls); the rest wait for the next scan.
const maxMaintainPerScan = 16

// maintainWait bounds how long a scan waits for one session's maintenance
// run. A session busy with a turn or an approval is not queued at all
// (busy); one that became busy after its run was queued is withdrawn
// after maintainWait and looked at again by the next scan, so that no
// session holds up the others' flushes before their expiry.
const maintainWait = 90 * time.Second

// maintainer remembers what it did, per session, keyed by the session's
// last activity (a session that becomes active again is due again). It
// keeps its marks in the store, so a restart does not flush or compact a
// session, or run the night's pass, a second time.
type maintainer struct {
	mu        sync.Mutex
	loaded    bool
	marks     map[string]maintMark
	lastNight string // the date (UTC) of the last nightly pass
}

// maintMark is what maintenance did to one session.
type maintMark struct {
	Flushed   time.Time `json:"flushed,omitzero"`   // the Updated its pre-expiry flush was done for
	Compacted time.Time `json:"compacted,omitzero"` // the Updated its idle compaction was done for
	Nightly   int       `json:"nightly,omitempty"`  // its messages after the last nightly pass
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

// maintainOnce is one scan: the pre-expiry flushes and idle compactions,
// then inside the quiet hours the night's pass, at most maxMaintainPerScan
// runs in all.
func (m *Manager) maintainOnce(ctx context.Context) error {
	o := m.opts.Maintenance
	mt := &m.maint
	now := m.clock.Now()
	if err := mt.load(m.store); err != nil {
		return err
	}
	sums, err := m.store.summaries()
	if err != nil {
		return err
	}
	mt.prune(sums)
	nightly := o.QuietHours != setting.HourRange{} && o.QuietHours.Contains(now.UTC().Hour())
	date := now.UTC().Format(time.DateOnly)
	mt.mu.Lock()
	nightly = nightly && mt.lastNight != date
	mt.mu.Unlock()
	nightlyIDs, budget, busyDue := m.maintainIdle(ctx, sums, now, nightly, maxMaintainPerScan)
	if !nightly {
		return nil
	}
	return m.maintainNightly(ctx, sums, nightlyIDs, date, budget, busyDue)
}

// maintainIdle flushes the sessions about to expire and compacts those
// idle for long, within budget runs; with nightly it lists the sessions
// the night's pass is for. It returns what is left of budget, and how
// many sessions due for the night were busy (left for a later scan).
func (m *Manager) maintainIdle(ctx context.Context, sums []Summary, now time.Time, nightly bool, budget int) (nightlyIDs []string, left, busyDue int) {
	o := m.opts.Maintenance
	mt := &m.maint
	for _, s := range sums {
		if !s.Archived.IsZero() {
			continue
		}
		mk := mt.get(s.ID)
		dueNight := nightly && s.Messages-mk.seen(s) >= max(o.NightlyMinMessages, 1)
		if m.busy(s.ID) {
			if dueNight {
				busyDue++
			}
			continue
		}
		if budget == 0 {
			if dueNight { // the night's pass counts it as not done yet
				nightlyIDs = append(nightlyIDs, s.ID)
			}
			continue
		}
		idle := now.Sub(s.Updated)
		switch {
		case o.PreExpiry > 0 && m.opts.TTL > 0 && idle >= m.opts.TTL-o.PreExpiry && idle < m.opts.TTL && s.Updated.After(mk.Flushed):
			budget--
			if ok, _ := m.maintainSession(ctx, s, loop.Maintenance{Flush: true}, ""); ok {
				mk.Flushed = s.Updated
				m.markMaintained(ctx, s.ID, mk)
				m.emit(ctx, beamclaw.EventMaintenancePreExpiryFlush, s.ID)
			}
		case o.IdleAfter > 0 && idle >= o.IdleAfter && s.Updated.After(mk.Compacted):
			budget--
			mk.Compacted = s.Updated
			m.markMaintained(ctx, s.ID, mk)
			m.maintainSession(ctx, s, loop.Maintenance{Compact: true, ThresholdPct: o.IdleThresholdPct,
				TargetPct: o.IdleTargetPct}, "idle")
		case dueNight:
			nightlyIDs = append(nightlyIDs, s.ID)
		}
	}
	return nightlyIDs, budget, busyDue
}

// maintainNightly is the night's pass of date: it flushes and compacts the
// sessions of ids, within budget runs, then records the night as done.
func (m *Manager) maintainNightly(ctx context.Context, sums []Summary, ids []string, date string, budget, busyDue int) error {
	o := m.opts.Maintenance
	mt := &m.maint
	m.emit(ctx, beamclaw.EventMaintenanceNightlyStart, "", slog.Int("session_count", len(ids)))
	flushed, skipped := 0, busyDue
	for _, s := range sums {
		if ctx.Err() != nil {
			break // stopping: queue no more runs
		}
		if !contains(ids, s.ID) {
			continue
		}
		if budget == 0 {
			skipped++ // the next scan of the night
			continue
		}
		if m.busy(s.ID) {
			skipped++ // its turn first; the next scan of the night comes back
			continue
		}
		budget--
		ok, left := m.maintainSession(ctx, s, loop.Maintenance{Flush: true, Compact: true,
			ThresholdPct: o.IdleThresholdPct, TargetPct: o.IdleTargetPct}, "nightly")
		if !ok {
			skipped++
		}
		if ok {
			flushed++
			if left == 0 {
				left = s.Messages // not compacted
			}
			mk := mt.get(s.ID)
			mk.Nightly = left
			m.markMaintained(ctx, s.ID, mk)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err() // stopped mid-pass: the sessions not done yet get it after a restart
	}
	if skipped > 0 {
		return nil // the night is done once every session of it is (those done are marked)
	}
	// The night is recorded once its pass is done (the sessions done
	// before a stop are marked one by one).
	mt.mu.Lock()
	mt.lastNight = date
	mt.mu.Unlock()
	if err := m.store.setLastNight(date); err != nil {
		m.log.LogAttrs(ctx, slog.LevelWarn, "session maintenance: the nightly pass is not recorded", slog.Any("err", err))
	}
	m.emit(ctx, beamclaw.EventMaintenanceNightlyComplete, "", slog.Int("flushed_count", flushed))
	return nil
}

// markMaintained sets what maintenance remembers of session id, in memory
// and in the store (the scan is the only writer). A failed write is
// logged: the mark holds until a restart, which may then repeat that one
// run.
func (m *Manager) markMaintained(ctx context.Context, id string, mk maintMark) {
	mt := &m.maint
	mt.mu.Lock()
	mt.marks[id] = mk
	mt.mu.Unlock()
	if err := m.store.setMaintained(id, mk); err != nil {
		m.log.LogAttrs(ctx, slog.LevelWarn, "session maintenance is not recorded", slog.String("session_id", id), slog.Any("err", err))
	}
}

// maintainSession runs mt on session s through its lane and waits for it;
// reason names a compaction for the maintenance_compact_complete event.
// left is the history's length the run's compaction left (0: none).
func (m *Manager) maintainSession(ctx context.Context, s Summary, mt loop.Maintenance, reason string) (ok bool, left int) {
	l, err := m.acquire(ctx, s.ID, nil)
	if err != nil {
		return false, 0
	}
	wait := NewWaitRoute()
	r := &run{id: m.newID("run"), channel: beamclaw.ChannelScheduler, route: newOnceRoute(wait), noAsk: true, maintain: &mt,
		autonomy: beamclaw.ReadOnly}
	queued := l.enqueue(r)
	m.release(l)
	if !queued {
		return false, 0
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := m.clock.AfterFunc(maintainWait, cancel)
	defer timer.Stop()
	ev, err := wait.Wait(wctx)
	if err != nil {
		l.withdraw(r) // still queued behind a turn: the next scan comes back
		return false, 0
	}
	if ev.Type != beamclaw.EvFinal {
		return false, 0
	}
	if reason != "" && ev.Text == "compacted" {
		m.emit(ctx, beamclaw.EventMaintenanceCompactComplete, s.ID, slog.String("reason", reason))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return true, r.compactedTo
}

// busy reports whether session id is serving a turn, has one queued, or
// waits for an approval: maintenance leaves it for a later scan. Its own
// maintenance runs (one a stopped scan stopped waiting for) do not count:
// the next one queues behind them, as the scan before did.
func (m *Manager) busy(id string) bool {
	m.mu.Lock()
	l := m.live[id]
	m.mu.Unlock()
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.approvals) > 0 || (l.inflight != nil && l.inflight.maintain == nil) {
		return true
	}
	return slices.ContainsFunc(l.queue, func(r *run) bool { return r.maintain == nil })
}

// withdraw takes a maintenance run out of the queue if it has not
// started (one that started runs to its end).
func (l *lane) withdraw(r *run) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, q := range l.queue {
		if q == r {
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			return
		}
	}
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

// load reads the marks a previous run of the daemon stored, once.
func (mt *maintainer) load(b backend) error {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if mt.loaded {
		return nil
	}
	marks, night, err := b.maintained()
	if err != nil {
		return err
	}
	mt.marks, mt.lastNight, mt.loaded = marks, night, true
	return nil
}

// prune forgets the marks of sessions that are no longer stored (the
// store dropped its own with them).
func (mt *maintainer) prune(sums []Summary) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if len(mt.marks) == 0 {
		return
	}
	stored := make(map[string]struct{}, len(sums))
	for _, s := range sums {
		stored[s.ID] = struct{}{}
	}
	for id := range mt.marks {
		if _, ok := stored[id]; !ok {
			delete(mt.marks, id)
		}
	}
}

func (mt *maintainer) get(id string) maintMark {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	return mt.marks[id]
}

// seen is how many of s's messages the last nightly pass left; none when
// s has fewer now (it was reset since).
func (mk maintMark) seen(s Summary) int {
	if mk.Nightly > s.Messages {
		return 0
	}
	return mk.Nightly
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
