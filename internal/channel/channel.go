// Package channel is the contract between a channel and the daemon. A
// channel's package declares its section of gateway.channels as a type
// that implements Section; that one field of config.Channels is its
// registration: the daemon loops over the sections, builds each enabled
// channel through its Module, puts its service under the channels
// supervisor, mounts its routes on the public listener and hands it the
// scheduler's deliveries of its kind. The webhook channel is the example
// (docs/architecture.md counts the files a channel takes).
package channel

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/setting"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Section is a channel's section of config.yaml (gateway.channels.<name>).
type Section interface {
	// Module describes the channel.
	Module() Module
	// Validate records every problem of the section under p.
	Validate(p *setting.Problems)
	// Enabled reports whether the channel runs.
	Enabled() bool
	// Options resolves the section ({env: VAR} secrets through getenv) into
	// the value New receives; it holds no config type.
	Options(getenv func(string) string) any
}

// RuntimeValidator is a Section that also checks what needs the
// environment (its secrets set and long enough); start runs it, `config
// check` may run where the variables are not set.
type RuntimeValidator interface {
	ValidateRuntime(p *setting.Problems, getenv func(string) string)
}

// TargetChecker is a Section that says which delivery targets it takes
// (a webhook's configured endpoints, a Telegram chat id): a scheduled
// delivery naming another is refused by config check and when a job is
// made.
type TargetChecker interface {
	CheckTarget(target string) error
}

// Detailer is an Instance that says more than "ready" in the daemon's
// health (Telegram: its receiving mode).
type Detailer interface {
	Detail() string
}

// Module is what the daemon needs to know of a channel besides its
// section.
type Module struct {
	// Name is the channel's name: its key under gateway.channels and
	// core.channel_autonomy, its beamclaw.Channel, and the kind of the
	// scheduler deliveries it takes ("<name>:<target>").
	Name beamclaw.Channel
	// Autonomy is the channel's autonomy ceiling unless
	// core.channel_autonomy names one.
	Autonomy beamclaw.Autonomy
	// Delivers reports whether the scheduler may deliver answers to the
	// channel ("<name>:<target>"); Instance.Deliver takes them.
	Delivers bool
	// Reply is the delivery target that reaches a user of the channel
	// back ("" for none): where a job an agent creates in a conversation
	// on this channel, naming no delivery, sends its answers.
	Reply func(userID string) string
	// Default is the section's defaults (the channel off).
	Default func() Section
	// New builds the channel from what Options returned.
	New func(h Host, options any) (Instance, error)
}

// Host is what the daemon gives a channel.
type Host struct {
	Sessions Sessions
	DB       *store.DB
	Logger   *slog.Logger
	Clock    clock.Clock
	// KnownAgent reports whether an agent exists.
	KnownAgent func(name string) bool
	// UserID is the session user of the channel's own user id under its
	// prefix ("tg", "<prefix>:<id>"), or BEAMCLAW_USER when set, so the
	// owner's sessions follow them across channels.
	UserID func(prefix, id string) string
	// StreamChunk is how many new characters of a streamed answer make an
	// edit of a shown message worth it (core.agentic_loop.stream_chunk_size).
	StreamChunk int
	// Links links a person's accounts (a /link command); nil: no linking.
	Links Linker
}

// Linker makes and redeems the codes that link a person's accounts
// (*people.Links). An account is "<prefix>:<id>", before BEAMCLAW_USER.
type Linker interface {
	Issue(ctx context.Context, account string) (code string, expires time.Time, err error)
	Redeem(ctx context.Context, account, code string) (person string, err error)
}

// Sessions is what a channel needs of the session manager.
type Sessions interface {
	// Send hands a message to its session once it is durable, returning
	// the id of the run that answers it on in.Route.
	Send(ctx context.Context, in beamclaw.Inbound) (string, error)
}

// Instance is a built channel.
type Instance interface {
	// Serve runs the channel until ctx ends (a suture service).
	Serve(ctx context.Context) error
	// Routes are served on the public listener (the gateway's token and
	// rate limit apply unless a route checks its own credentials).
	Routes() []Route
	// Deliver sends a scheduled answer to target (the part after
	// "<name>:"); it returns once the answer is durably queued or sent.
	Deliver(ctx context.Context, target string, d Delivery) error
}

// Singleton is an Instance that reports whether its Serve must run on one
// node of a cluster at a time (a Telegram long poll: two pollers of one
// bot conflict). Instances that do not implement it run on every node.
type Singleton interface {
	Singleton() bool
}

// Route is an HTTP route of a channel.
type Route struct {
	// Method "" mounts the subtree at Pattern (every method).
	Method, Pattern string
	Handler         http.Handler
	// OwnAuth: the route checks its own credentials (a signature), so the
	// gateway's bearer token is not asked for.
	OwnAuth bool
}

// Delivery is a scheduled answer.
type Delivery struct {
	JobID, UserID, Agent, SessionID, Text string
}
