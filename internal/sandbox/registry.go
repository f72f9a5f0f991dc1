package sandbox

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

// stopTimeout bounds how long removing one container's service may take.
const stopTimeout = 20 * time.Second

// registry maps scope keys to their boxes (one container each) and runs
// the boxes as services of its own supervisor.
type registry struct {
	m       *Manager
	sup     *suture.Supervisor
	started chan struct{} // closed when Serve first runs
	once    sync.Once
	stopped atomic.Bool

	mu    sync.Mutex
	boxes map[string]*box // by scope key; guarded by mu, as are each box's inflight, lastUsed, token
}

func newRegistry(m *Manager) *registry {
	return &registry{
		m:       m,
		sup:     supervise.New("sandbox", supervise.Options{Logger: m.log, Timeout: stopTimeout}),
		started: make(chan struct{}),
		boxes:   map[string]*box{},
	}
}

func (r *registry) String() string { return "sandbox-registry" }

// Serve runs the containers' supervisor; when it stops, every container
// service stops and removes its container.
func (r *registry) Serve(ctx context.Context) error {
	r.once.Do(func() { close(r.started) })
	err := r.sup.Serve(ctx)
	if ctx.Err() != nil {
		r.stopped.Store(true)
	}
	return err
}

// acquire returns c's box, ready, with a run counted in flight (release
// it), creating the box and its container on first use. Before the
// registry's service first runs, it waits (bounded by ctx).
func (r *registry) acquire(ctx context.Context, c Caller) (*box, error) {
	const op = "sandbox.Run"
	select {
	case <-r.started:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if r.stopped.Load() {
		return nil, beamclaw.E(op, beamclaw.KindUnavailable, "the sandbox has stopped", nil)
	}
	key := r.m.scopeKey(c)
	r.mu.Lock()
	b := r.boxes[key]
	fresh := b == nil
	if fresh {
		b = newBox(r.m, key, c)
		r.boxes[key] = b
	}
	b.inflight++
	b.lastUsed = r.m.clk.Now()
	r.mu.Unlock()
	if fresh {
		tok := r.sup.Add(supervise.Guard(b, supervise.GuardOptions{Clock: r.m.clk}))
		r.mu.Lock()
		b.token, b.hasToken = tok, true
		r.mu.Unlock()
	}
	select {
	case <-b.ready:
	case <-ctx.Done():
		r.release(b)
		return nil, ctx.Err()
	}
	if b.startErr != nil {
		r.release(b)
		return nil, b.startErr
	}
	return b, nil
}

func (r *registry) release(b *box) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b.inflight--
	b.lastUsed = r.m.clk.Now()
}

// forget drops b from the map (its service ended).
func (r *registry) forget(b *box) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.boxes[b.key] == b {
		delete(r.boxes, b.key)
	}
}

// retire stops b's service (which removes its container) unless a run is
// in flight; it reports whether b was retired.
func (r *registry) retire(b *box) bool { return r.stopBox(b, false) }

// retireNow stops b's service even with runs in flight (they fail).
func (r *registry) retireNow(b *box) { r.stopBox(b, true) }

func (r *registry) stopBox(b *box, force bool) bool {
	r.mu.Lock()
	if b.inflight > 0 && !force {
		r.mu.Unlock()
		return false
	}
	if r.boxes[b.key] == b {
		delete(r.boxes, b.key)
	}
	tok, has := b.token, b.hasToken
	r.mu.Unlock()
	if has {
		_ = r.sup.RemoveAndWait(tok, stopTimeout) // an ended service is already gone
	}
	return true
}

// boxInfo is a registry entry as the reaper and List see it.
type boxInfo struct {
	b        *box
	inflight int
	lastUsed time.Time
}

func (r *registry) snapshot() map[string]boxInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]boxInfo, len(r.boxes))
	for _, b := range r.boxes {
		out[b.name] = boxInfo{b: b, inflight: b.inflight, lastUsed: b.lastUsed}
	}
	return out
}

// Release stops the container of a scope (a session that ended, say)
// unless a run is in flight; the reaper would remove it later anyway.
func (m *Manager) Release(c Caller) bool {
	m.reg.mu.Lock()
	b := m.reg.boxes[m.scopeKey(c)]
	m.reg.mu.Unlock()
	if b == nil {
		return false
	}
	return m.reg.retire(b)
}
