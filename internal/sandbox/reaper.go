package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Reasons a container is reaped (the sandbox_reaped event's "reason").
const (
	ReapSessionGone = "session_gone" // its session no longer exists
	ReapDaemonDead  = "daemon_dead"  // the daemon that made it is not running
	ReapPosture     = "posture"      // made under other hardening settings or another image
	ReapIdle        = "idle"         // no run for IdleTimeout
	ReapOrphan      = "orphan"       // this daemon's, but no service holds it
	ReapKilled      = "killed"       // `beamclaw sandbox kill`
)

// reaper removes containers left behind: at start, every ReaperInterval
// and when SweepSoon asks. It never touches another installation's containers,
// nor one of its own with a run in flight.
type reaper struct{ m *Manager }

func (r *reaper) String() string { return "sandbox-reaper" }

func (r *reaper) Serve(ctx context.Context) error {
	for {
		if _, err := r.m.Reap(ctx); err != nil && ctx.Err() == nil {
			r.m.log.Warn("sandbox: reaper sweep failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.m.clk.After(r.m.opts.ReaperInterval):
		case <-r.m.sweep:
		}
	}
}

// SweepSoon asks the reaper for a sweep now instead of at its next
// interval (the daemon calls it when a session expired); it never blocks.
func (m *Manager) SweepSoon() {
	select {
	case m.sweep <- struct{}{}:
	default:
	}
}

// Reaped is one container a sweep removed.
type Reaped struct {
	Name    string
	Session string
	Reason  string
}

// Reap runs one sweep now and returns what it removed; the reaper
// service calls it on its schedule. Sweeps do not overlap.
func (m *Manager) Reap(ctx context.Context) ([]Reaped, error) {
	m.reapMu.Lock()
	defer m.reapMu.Unlock()
	list, err := m.engine.ContainerList(ctx, client.ContainerListOptions{
		All: true, Filters: make(client.Filters).Add("label", LabelInstall+"="+m.opts.InstallID),
	})
	if err != nil {
		return nil, fmt.Errorf("list sandbox containers: %w", err)
	}
	posture := ""
	if id, _, ok, err := imageLabels(ctx, m.engine, m.opts.Image); err == nil && ok {
		posture = m.posture(id)
	}
	boxes := m.reg.snapshot()
	now := m.clk.Now()
	var out []Reaped
	for _, c := range list.Items {
		name := containerNameOf(c)
		reason := ""
		if c.Labels[LabelInstance] == m.instance {
			bi, known := boxes[name]
			switch {
			case !known:
				if c.State != container.StateCreated { // created: a box may still be starting it
					reason = ReapOrphan
				}
			case bi.inflight > 0:
			case m.opts.Scope == ScopeSession && !m.opts.SessionAlive(c.Labels[LabelSession]):
				reason = ReapSessionGone
			case posture != "" && c.Labels[LabelPosture] != posture:
				reason = ReapPosture
			case m.opts.IdleTimeout > 0 && now.Sub(bi.lastUsed) > m.opts.IdleTimeout:
				reason = ReapIdle
			}
			if reason != "" && known {
				if !m.reg.retire(bi.b) {
					continue // a run started meanwhile
				}
				m.emitReaped(name, c.Labels[LabelSession], reason)
				out = append(out, Reaped{name, c.Labels[LabelSession], reason})
				continue
			}
		} else if !m.proc.alive(c.Labels[LabelDaemon]) {
			reason = ReapDaemonDead
		}
		if reason == "" {
			continue
		}
		if _, err := m.engine.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
			m.log.Warn("sandbox: cannot reap container", "container", name, "err", err)
			continue
		}
		m.emitReaped(name, c.Labels[LabelSession], reason)
		out = append(out, Reaped{name, c.Labels[LabelSession], reason})
	}
	m.dropTokenizers()
	return out, nil
}

func (m *Manager) emitReaped(name, session, reason string) {
	m.log.Info("sandbox: container reaped", "container", name, "reason", reason)
	m.opts.Emit(beamclaw.Event{
		Name: beamclaw.EventSandboxReaped, SessionID: session, Time: m.clk.Now(),
		Attrs: []slog.Attr{slog.String("container_name", name), slog.String("reason", reason)},
	})
}

func containerNameOf(c container.Summary) string {
	if len(c.Names) == 0 {
		return shortID(c.ID)
	}
	return strings.TrimPrefix(c.Names[0], "/")
}
