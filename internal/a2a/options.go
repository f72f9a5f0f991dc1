package a2a

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"net"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/skill"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// Sessions is the session manager as the A2A edge uses it. Send persists
// in's message before it returns and later delivers the run's events to
// in.Route, ending with exactly one EvFinal or EvError. Decide answers a
// pending approval of a session asked on origin (the task's context,
// "a2a:<contextId>"); Cancel stops a run.
type Sessions interface {
	Send(ctx context.Context, in beamclaw.Inbound) (runID string, err error)
	SessionID(in beamclaw.Inbound) string
	Decide(ctx context.Context, sessionID, approvalID, origin string, d beamclaw.Decision) error
	Cancel(ctx context.Context, sessionID, runID string) error
}

// originOf is where a task's approvals are asked and answered: its
// context (one conversation of one caller).
func originOf(contextID string) string { return "a2a:" + contextID }

// Agents is what the edge needs to know of the agents: which exist, and
// the skills their cards list.
type Agents interface {
	Exists(name string) bool
	List() []string
	Skills(agentID string) ([]skill.Skill, error)
}

// Emitter receives observability events; Emit must not block (obs.Bus).
type Emitter interface {
	Emit(ctx context.Context, ev beamclaw.Event)
}

// Peer is another A2A agent (a2a.peers): its name, where its card is, and
// the secret shared with it.
type Peer struct {
	Name  string
	URL   string // "" for a peer that only calls us
	Token string // resolved; "" for none
}

// Options configure the A2A server. The daemon builds them from the a2a
// config section.
type Options struct {
	Sessions Sessions
	Agents   Agents
	DB       *store.DB
	// Node is this node's id in cluster mode ("" alone): the tasks are
	// the cluster's (ADR-045), and each names the node that runs it.
	Node string
	// Alive reports the nodes of the cluster that answer now (cluster
	// mode): the unfinished tasks of the others are failed, their runs
	// gone with them.
	Alive func(ctx context.Context) map[string]bool
	// CancelElsewhere asks node, which runs the task id, to cancel it
	// (Server.CancelHere; cluster mode, nil alone): nil once that node
	// took the cancel, an error when it does not run the task (gone,
	// finished) or does not answer.
	CancelElsewhere func(ctx context.Context, node, id string) error
	// TaskElsewhere asks node, which runs the task id, for its newest
	// record (Server.LiveTask; empty when it keeps none newer than the
	// store's; cluster mode, nil alone).
	TaskElsewhere func(ctx context.Context, node, id string) ([]byte, error)
	// SubscribeElsewhere relays, from node, which runs the task id, the
	// events a resubscription there yields (Server.SubscribeHere), each
	// an a2a.StreamResponse's JSON; an error first when that node does
	// not run it (cluster mode, nil alone).
	SubscribeElsewhere func(ctx context.Context, node, id string) iter.Seq2[[]byte, error]
	// GatewayToken is gateway.auth.token, resolved ("" = none). A request
	// bearing it acts as the caller "gateway"; one bearing a peer's token
	// acts as that peer.
	GatewayToken string
	Peers        []Peer
	// Exposed are the agents peers may call (a2a.agents); empty = all. The
	// first one, or DefaultAgent, answers on /a2a.
	Exposed      []string
	DefaultAgent string
	// PublicURL is the base URL written into the cards (a2a.public_url);
	// "" = the host the card was requested from.
	PublicURL string
	// Push accepts push-notification configs (a2a.push_notifications).
	Push bool
	// Retention is how long finished tasks stay (a2a.task_retention_hours).
	Retention time.Duration
	// UserID turns a caller into the session user id (default
	// "a2a:<caller>"). BEAMCLAW_USER does not apply: a caller is another
	// agent, never the owner whose sessions follow them across channels.
	UserID func(caller string) string
	// Version is the build's version, the cards' version.
	Version string

	// PushIPCheck is the address policy of push URLs (default
	// builtin.CheckPublicIP); Resolver resolves their hosts.
	PushIPCheck func(net.IP) error
	Resolver    builtin.Resolver

	Emitter Emitter
	Logger  *slog.Logger
	Clock   clock.Clock
}

// GatewayCaller is the caller a request bearing the gateway token acts as.
const GatewayCaller = "gateway"

// Closed says why /a2a must stay off ("" when it may serve): A2A never
// runs without a token to check.
func (o Options) Closed() string {
	if o.GatewayToken != "" {
		return ""
	}
	for _, p := range o.Peers {
		if p.Token != "" {
			return ""
		}
	}
	return "no token to check: set gateway.auth.token, or a token for a peer in a2a.peers (A2A never runs unauthenticated)"
}

func (o Options) withDefaults() (Options, error) {
	switch {
	case o.Sessions == nil || o.Agents == nil || o.DB == nil:
		return o, errors.New("a2a: Sessions, Agents and DB are required")
	case o.Closed() != "":
		return o, errors.New("a2a: " + o.Closed())
	}
	if o.DefaultAgent == "" {
		o.DefaultAgent = "default"
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.UserID == nil {
		o.UserID = func(caller string) string { return "a2a:" + caller }
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.PushIPCheck == nil {
		o.PushIPCheck = builtin.CheckPublicIP
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Clock = clock.Or(o.Clock)
	return o, nil
}
