package session

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/cluster"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// Defaults of Options, and of the config (DefaultConfig).
const (
	DefaultIdleHibernate   = 5 * time.Minute // core.session_idle_hibernate_seconds
	DefaultTTL             = time.Hour       // core.session_ttl_seconds
	DefaultCleanupInterval = 5 * time.Minute // core.session_cleanup_interval_ms
	DefaultApprovalTimeout = 5 * time.Minute // core.approval_timeout_seconds
	DefaultMaxLive         = 10000           // core.max_live_sessions
)

// Emitter receives observability events; Emit must not block (obs.Bus).
type Emitter interface {
	Emit(ctx context.Context, ev beamclaw.Event)
}

// Options configure a Manager. Zero durations take the defaults; a
// negative IdleHibernate or TTL disables hibernation or expiry.
type Options struct {
	// Engine runs the agentic loop. Required.
	Engine *loop.Engine
	// Persist stores sessions in DB (core.session_persistence, which
	// defaults to true in config); false keeps them in memory only.
	Persist bool
	DB      *store.DB
	// PerChannel derives session ids per channel (core.session_sharing:
	// per_channel) instead of sharing them across channels.
	PerChannel bool
	// Autonomy is an agent's autonomy (agents.<name>.autonomy, falling
	// back to core.autonomy_level); Supervised when nil. A run's autonomy
	// is the lower of this and the channel's ceiling (Inbound.Autonomy).
	Autonomy func(agentID string) beamclaw.Autonomy
	// Person resolves a stored session's user to the person that account
	// belongs to now (people.Links.Resolve): a resume and the user's
	// session list reach the sessions of the person's linked accounts
	// too. Default: every account is its own person.
	Person func(userID string) string
	// Ledger records every model call of the sessions' runs (nil: none),
	// in the run's own writes.
	Ledger *usage.Ledger
	// Cluster keeps sessions on the cluster's JetStream instead of DB
	// (cluster.enabled): a live session is owned by one node, through a
	// lease, and its writes are fenced against any other.
	Cluster *cluster.Node
	// Forward hands a message to the node that owns its session and
	// relays the run's events to in.Route (cluster mode; nil: a session
	// owned elsewhere is refused as unavailable).
	Forward func(ctx context.Context, node string, in beamclaw.Inbound) (runID string, err error)
	// Ceilings cap a run's autonomy by its channel (core.channel_autonomy);
	// an edge may lower it further with Inbound.Autonomy.
	Ceilings map[beamclaw.Channel]beamclaw.Autonomy
	// Maintenance is proactive session maintenance (core.maintenance);
	// a zero Scan turns it off.
	Maintenance MaintenanceOptions
	// CrossChannelApprovals lets a pending approval be answered from any
	// of the session's origins (the same user on the TUI and Telegram),
	// not only where it was asked (core.approval_cross_channel). The
	// OpenAI-compatible API never approves.
	CrossChannelApprovals bool

	IdleHibernate time.Duration
	// MaxLive caps the sessions kept in memory (core.max_live_sessions):
	// a new one hibernates the least recently used idle one. 0 = no cap.
	MaxLive int
	TTL     time.Duration
	// Retention deletes sessions archived longer than it
	// (core.session_retention_days); 0 keeps archives for good.
	Retention       time.Duration
	CleanupInterval time.Duration
	ApprovalTimeout time.Duration
	// LoopBudget bounds loop restarts per session (default 5 in 30 s);
	// past it the session stops and the next message revives it.
	LoopBudget supervise.Budget

	Emitter Emitter
	Logger  *slog.Logger
	Clock   clock.Clock // defaults to clock.System
}

func (o Options) withDefaults() (Options, error) {
	if o.Engine == nil {
		return o, errors.New("session: Options.Engine is required")
	}
	if o.Persist && o.DB == nil {
		return o, errors.New("session: Options.DB is required when Persist is set")
	}
	if o.Person == nil {
		o.Person = func(userID string) string { return userID }
	}
	if o.Autonomy == nil {
		o.Autonomy = func(string) beamclaw.Autonomy { return beamclaw.Supervised }
	}
	setDuration(&o.IdleHibernate, DefaultIdleHibernate)
	setDuration(&o.TTL, DefaultTTL)
	setDuration(&o.CleanupInterval, DefaultCleanupInterval)
	setDuration(&o.ApprovalTimeout, DefaultApprovalTimeout)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Clock = clock.Or(o.Clock)
	return o, nil
}

func setDuration(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}
