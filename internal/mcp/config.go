package mcp

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
)

// Transports a server may use.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Defaults applied by New and Probe to zero fields.
const (
	DefaultProtocolVersion = "2025-11-25"
	DefaultTimeout         = 30 * time.Second
	DefaultMaxInlineTools  = 40
	DefaultPingInterval    = 30 * time.Second
)

// ServerConfig is one configured MCP server. Env and Headers hold values
// already resolved from {env: VAR} by the daemon; they are never logged.
type ServerConfig struct {
	Name      string
	Transport string // "stdio" (default) or "http"
	Command   string
	Args      []string
	Env       map[string]string
	Cwd       string
	URL       string
	Headers   map[string]string
	Timeout   time.Duration // per call and for the handshake; 0 means DefaultTimeout
	Enabled   bool
	Trust     bool     // tools run without approval (still at least supervised)
	Agents    []string // empty: every agent
	// OAuth configures authorization for an HTTP server (client, scopes,
	// grant). Without it a server that answers 401 is still authorized
	// by `beamclaw mcp login` through discovery and dynamic registration.
	OAuth oauth.Config
}

func (c ServerConfig) transport() string {
	if c.Transport == "" {
		return TransportStdio
	}
	return c.Transport
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// Validate reports every problem of the record at once.
func (c ServerConfig) Validate() error {
	var errs []error
	if c.Name == "" {
		errs = append(errs, errors.New("name is required"))
	}
	switch c.transport() {
	case TransportStdio:
		if c.Command == "" {
			errs = append(errs, errors.New("command is required for stdio"))
		}
	case TransportHTTP:
		if c.URL == "" {
			errs = append(errs, errors.New("url is required for http"))
		}
	default:
		errs = append(errs, fmt.Errorf("transport %q: want stdio or http", c.Transport))
	}
	if c.Timeout < 0 {
		errs = append(errs, errors.New("timeout must not be negative"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("mcp server %q: %w", c.Name, err)
	}
	return nil
}

// RestartPolicy bounds restarts: more than MaxRestarts failures within
// Window mark the server failed for good. Between attempts the service
// waits BackoffBase * 2^(n-1), capped at BackoffMax.
type RestartPolicy struct {
	MaxRestarts int           // default 5
	Window      time.Duration // default 30 s
	BackoffBase time.Duration // default 500 ms
	BackoffMax  time.Duration // default 10 s
}

func (p RestartPolicy) withDefaults() RestartPolicy {
	if p.MaxRestarts <= 0 {
		p.MaxRestarts = DefaultMaxRestarts
	}
	if p.Window <= 0 {
		p.Window = DefaultRestartWindow
	}
	if p.BackoffBase <= 0 {
		p.BackoffBase = 500 * time.Millisecond
	}
	if p.BackoffMax <= 0 {
		p.BackoffMax = 10 * time.Second
	}
	return p
}

// Options configures a Manager.
type Options struct {
	Servers         []ServerConfig
	ProtocolVersion string // mcp.protocol_version; default "2025-11-25"
	ClientVersion   string // clientInfo.version in initialize: the build's version; default "dev"
	MaxInlineTools  int    // mcp.max_inline_tools; default 40; negative: never defer
	PingInterval    time.Duration
	Restart         RestartPolicy
	Logger          *slog.Logger
	// Emit receives events (mcp_call, mcp_restart, mcp_server_state,
	// mcp_tool_changed; the metrics derive from them). It must not block.
	Emit func(beamclaw.Event)
	Pins PinStore // default: in memory
	// Tokens keeps the OAuth tokens of HTTP servers (the daemon's store
	// is encrypted in bbolt); default: in memory.
	Tokens oauth.Store
	// RedirectCheck is the address rule (the curl tool's SSRF rule, handed
	// in by the daemon) of an HTTP server's redirects to a host other than
	// the configured one; nil refuses them all. A redirect to another
	// origin is refused whatever it says (oauth.RedirectGuard).
	RedirectCheck oauth.HostCheck
	Clock         clock.Clock // default: clock.System
}

func (o Options) withDefaults() Options {
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = DefaultProtocolVersion
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.MaxInlineTools == 0 {
		o.MaxInlineTools = DefaultMaxInlineTools
	}
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	o.Restart = o.Restart.withDefaults()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Emit == nil {
		o.Emit = func(beamclaw.Event) {}
	}
	if o.Pins == nil {
		o.Pins = NewMemPinStore()
	}
	if o.Tokens == nil {
		o.Tokens = oauth.NewMemStore()
	}
	o.Clock = clock.Or(o.Clock)
	return o
}
