package sandbox

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/go-units"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/setting"
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
	DefaultNetwork         = "none"
	DefaultWorkspaceMount  = "ro"
)

// The values the enumerated settings take.
var (
	Scopes          = []string{ScopeSession, ScopeAgent, ScopeShared}
	Networks        = []string{"none", "bridge", "host"}
	WorkspaceMounts = []string{"none", "ro", "rw"}
	// Runtimes: "" is the engine's default.
	Runtimes = []string{"runc", "runsc"}
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

// PIIOptions are sandbox.pii (PIIConfig).
type PIIOptions struct {
	Enabled         bool
	Patterns        []string // extra RE2 expressions to tokenize (kind CUSTOM)
	TokenizeScripts bool     // tokenize the script before it enters the container
	TokenizeResults bool     // tokenize tool results going in, and the run's output going to the model
}

// PolicyOptions are sandbox.policy (PolicyConfig).
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
	set(&o.Network, DefaultNetwork)
	set(&o.WorkspaceMount, DefaultWorkspaceMount)
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

// envPatterns checks variable names with '*' wildcards ("AWS_*"): with
// each '*' read as a letter, a valid variable name.
func envPatterns(p *setting.Problems, key string, list []string) {
	for i, pat := range list {
		if !setting.IsEnvName(strings.ReplaceAll(pat, "*", "X")) {
			p.Add(fmt.Sprintf("%s[%d]", key, i), "%q is not a variable name ('*' wildcards allowed)", pat)
		}
	}
}

var installIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// limits are the parsed resource limits.
type limits struct {
	memory   int64
	nanoCPUs int64
}

// validate reports every problem of o (after withDefaults) at once.
func (o Options) validate() (limits, error) {
	var p setting.Problems
	if !installIDRE().MatchString(o.InstallID) {
		p.Add("install_id", "%q must be 1-64 letters, digits, '.', '_' or '-'", o.InstallID)
	}
	l := o.check(&p)
	return l, p.Err()
}

// check records the problems of the settings that come from the config
// section, under their keys there; Config.Validate is this check.
func (o Options) check(p *setting.Problems) limits {
	var l limits
	if o.Image == "" {
		p.Add("docker_image", "must not be empty")
	}
	p.Enum("scope", o.Scope, Scopes)
	if o.Timeout < time.Second {
		p.Add("timeout_seconds", "must be at least 1 second, got %v", o.Timeout)
	}
	if o.ReaperInterval <= 0 {
		p.Add("reaper_interval_ms", "must be at least 1, got %v", o.ReaperInterval)
	}
	if m, err := units.RAMInBytes(o.MemoryLimit); err != nil || m < 16<<20 {
		p.Add("memory_limit", "%q is not a size of at least 16m (like 512m)", o.MemoryLimit)
	} else {
		l.memory = m
	}
	if c, err := strconv.ParseFloat(o.CPULimit, 64); err != nil || c <= 0 || c > 1024 {
		p.Add("cpu_limit", "%q is not a positive number of CPUs", o.CPULimit)
	} else {
		l.nanoCPUs = int64(c * 1e9)
	}
	p.Min("pids_limit", o.PidsLimit, 1)
	p.Enum("network", o.Network, Networks)
	p.Enum("workspace_mount", o.WorkspaceMount, WorkspaceMounts)
	p.Min64("max_output_bytes", o.MaxOutputBytes, 1)
	if !filepath.IsAbs(o.BridgeSocketDir) {
		p.Add("bridge_socket_dir", "%q must be an absolute path", o.BridgeSocketDir)
	} else if len(filepath.Join(o.BridgeSocketDir, "0123456789abcdef", "runner.sock")) > maxSocketPath {
		p.Add("bridge_socket_dir", "%q is too long for a Unix socket path", o.BridgeSocketDir)
	}
	if o.Runtime != "" {
		p.Enum("runtime", o.Runtime, Runtimes)
	}
	envPatterns(p, "env_allowlist", o.EnvAllowlist)
	envPatterns(p, "env_blocklist", o.EnvBlocklist)
	for i, pat := range o.PII.Patterns {
		if _, err := regexp.Compile(pat); err != nil {
			p.Add(fmt.Sprintf("pii.patterns[%d]", i), "invalid regular expression: %v", err)
		}
	}
	buildPolicy(o.Policy, p.Under("policy"))
	return l
}
