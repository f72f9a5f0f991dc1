package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/docker/go-units"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Defaults of Options (the config's defaults).
const (
	DefaultImage           = "beamclaw-sandbox:latest"
	DefaultTimeout         = 60 * time.Second
	DefaultReaperInterval  = time.Minute
	DefaultIdleTimeout     = 30 * time.Minute
	DefaultMemoryLimit     = "512m"
	DefaultCPULimit        = "1.0"
	DefaultPidsLimit       = 256
	DefaultMaxOutputBytes  = 1 << 20
	DefaultBridgeSocketDir = "/tmp/beamclaw-bridges"
)

// Scopes: which runs share a container.
const (
	ScopeSession = "session" // one container per session (default)
	ScopeAgent   = "agent"   // one per agent, shared by its sessions
	ScopeShared  = "shared"  // one for everything
)

// Options configure a Manager. The first group mirrors config's sandbox
// section; zero values take the defaults above.
type Options struct {
	Image           string        // sandbox.docker_image
	Scope           string        // sandbox.scope: session | agent | shared
	Timeout         time.Duration // sandbox.timeout_seconds: a run's limit (and the cap of a script's own)
	ReaperInterval  time.Duration // sandbox.reaper_interval_ms
	MemoryLimit     string        // sandbox.memory_limit, e.g. "512m"; swap is set equal (no swap)
	CPULimit        string        // sandbox.cpu_limit, e.g. "1.0"
	PidsLimit       int           // sandbox.pids_limit
	Network         string        // sandbox.network: none (default) | bridge | host
	WorkspaceMount  string        // sandbox.workspace_mount: none | ro | rw (default ro); not for scope shared
	MaxOutputBytes  int64         // sandbox.max_output_bytes: stdout+stderr of one run
	BridgeSocketDir string        // sandbox.bridge_socket_dir: absolute; one 0711 subdirectory per container
	EnvAllowlist    []string      // sandbox.env_allowlist: names ('*' wildcards) a run inherits
	EnvBlocklist    []string      // sandbox.env_blocklist: names never passed, whatever the allowlist says
	PII             PIIOptions    // sandbox.pii
	Policy          PolicyOptions // sandbox.policy
	// Runtime is the OCI runtime ("" for the engine's default, or "runsc"
	// for gVisor, which must be registered with the engine; gVisor must
	// allow host Unix sockets, runtimeArgs ["--host-uds=all"]).
	Runtime string

	// InstallID identifies this beamclaw installation (required); the
	// reaper only ever touches containers labelled with it.
	InstallID string
	// IdleTimeout removes a scope's container after this long without a
	// run (default 30 min; negative: never).
	IdleTimeout time.Duration
	// SecretValues are the resolved secret values of the config (provider
	// keys, bot tokens, the gateway token): an environment variable whose
	// value contains one never enters a container, whatever its name.
	SecretValues []string
	// Environ supplies the daemon's environment (default os.Environ).
	Environ func() []string
	// Tools is what the bridge dispatches to (nil: scripts see no tools).
	Tools Tools
	// SessionAlive reports whether a session still exists; the reaper
	// removes the containers of sessions that do not (default: all alive).
	SessionAlive func(sessionID string) bool
	// Scrub cleans the final output of a run and every tool result before
	// it enters a container (default: unchanged). Pass the loop's scrubber.
	Scrub func(string) string
	// Emit receives sandbox_reaped events; it must not block.
	Emit func(beamclaw.Event)
	// DockerHost overrides DOCKER_HOST (default: the environment, then
	// unix:///var/run/docker.sock). The engine must run on this machine:
	// bridge directories are bind-mounted.
	DockerHost string
	Logger     *slog.Logger
	Clock      clock.Clock
}

// PIIOptions mirror sandbox.pii.
type PIIOptions struct {
	Enabled         bool
	Patterns        []string // extra RE2 expressions to tokenize (kind CUSTOM)
	TokenizeScripts bool     // tokenize the script before it enters the container
	TokenizeResults bool     // tokenize tool results going in, and the run's output going to the model
}

// PolicyOptions mirror sandbox.policy.
type PolicyOptions struct {
	DefaultAction string // "allow" (default) or "deny"
	Rules         []PolicyRule
}

// PolicyRule allows or denies a tool name or "<source>" pattern.
type PolicyRule struct {
	Action string // "allow" or "deny"
	Tool   string // a name ("read_file"), a wildcard ("github__*"), or a source ("mcp:*", "mcp:github")
}

// maxSocketPath keeps <BridgeSocketDir>/<16 hex>/bridge.sock under the
// 108-byte sun_path limit.
const maxSocketPath = 100

func (o Options) withDefaults() Options {
	set := func(s *string, def string) {
		if *s == "" {
			*s = def
		}
	}
	set(&o.Image, DefaultImage)
	set(&o.Scope, ScopeSession)
	set(&o.MemoryLimit, DefaultMemoryLimit)
	set(&o.CPULimit, DefaultCPULimit)
	set(&o.Network, "none")
	set(&o.WorkspaceMount, "ro")
	set(&o.BridgeSocketDir, DefaultBridgeSocketDir)
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ReaperInterval <= 0 {
		o.ReaperInterval = DefaultReaperInterval
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.PidsLimit <= 0 {
		o.PidsLimit = DefaultPidsLimit
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.SessionAlive == nil {
		o.SessionAlive = func(string) bool { return true }
	}
	if o.Scrub == nil {
		o.Scrub = func(s string) string { return s }
	}
	if o.Emit == nil {
		o.Emit = func(beamclaw.Event) {}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Clock = clock.Or(o.Clock)
	return o
}

var installIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// limits are the parsed resource limits.
type limits struct {
	memory   int64
	nanoCPUs int64
}

// validate reports every problem of o (after withDefaults) at once.
func (o Options) validate() (limits, error) {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	var l limits
	if !installIDRE().MatchString(o.InstallID) {
		bad("install id %q must be 1-64 letters, digits, '.', '_' or '-'", o.InstallID)
	}
	switch o.Scope {
	case ScopeSession, ScopeAgent, ScopeShared:
	default:
		bad("scope %q is not session, agent or shared", o.Scope)
	}
	switch o.Network {
	case "none", "bridge", "host":
	default:
		bad("network %q is not none, bridge or host", o.Network)
	}
	switch o.WorkspaceMount {
	case "none", "ro", "rw":
	default:
		bad("workspace_mount %q is not none, ro or rw", o.WorkspaceMount)
	}
	if m, err := units.RAMInBytes(o.MemoryLimit); err != nil || m < 16<<20 {
		bad("memory_limit %q is not a size of at least 16m", o.MemoryLimit)
	} else {
		l.memory = m
	}
	if c, err := strconv.ParseFloat(o.CPULimit, 64); err != nil || c <= 0 || c > 1024 {
		bad("cpu_limit %q is not a positive number of CPUs", o.CPULimit)
	} else {
		l.nanoCPUs = int64(c * 1e9)
	}
	if !filepath.IsAbs(o.BridgeSocketDir) {
		bad("bridge_socket_dir %q must be an absolute path", o.BridgeSocketDir)
	} else if len(filepath.Join(o.BridgeSocketDir, "0123456789abcdef", "runner.sock")) > maxSocketPath {
		bad("bridge_socket_dir %q is too long for a Unix socket path", o.BridgeSocketDir)
	}
	switch o.Runtime {
	case "", "runc", "runsc":
	default:
		bad("runtime %q is not runc or runsc", o.Runtime)
	}
	if _, err := newPolicy(o.Policy); err != nil {
		errs = append(errs, err)
	}
	if o.PII.Enabled {
		if _, err := newDetector(o.PII.Patterns); err != nil {
			errs = append(errs, err)
		}
	}
	return l, errors.Join(errs...)
}
