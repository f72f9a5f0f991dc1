package sandbox

import (
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the sandbox section of config.yaml. The package owns it: its
// defaults (DefaultConfig), its rules (Validate, the same checks New
// applies) and its translation into Options.
type Config struct {
	Enabled          bool   `yaml:"enabled"`
	DockerImage      string `yaml:"docker_image"`
	Scope            string `yaml:"scope"`
	TimeoutSeconds   int    `yaml:"timeout_seconds"`
	ReaperIntervalMs int    `yaml:"reaper_interval_ms"`
	MemoryLimit      string `yaml:"memory_limit"`
	CPULimit         string `yaml:"cpu_limit"`
	PidsLimit        int    `yaml:"pids_limit"`
	Network          string `yaml:"network"`
	WorkspaceMount   string `yaml:"workspace_mount"`
	MaxOutputBytes   int64  `yaml:"max_output_bytes"`
	BridgeSocketDir  string `yaml:"bridge_socket_dir"`
	// Runtime is the engine's OCI runtime: runc, or runsc (gVisor), which
	// must be registered with the engine.
	Runtime      string       `yaml:"runtime"`
	EnvAllowlist []string     `yaml:"env_allowlist"`
	EnvBlocklist []string     `yaml:"env_blocklist"`
	PII          PIIConfig    `yaml:"pii"`
	Policy       PolicyConfig `yaml:"policy"`
}

// PIIConfig is sandbox.pii: the tokenizer that masks personal data
// crossing the sandbox boundary.
type PIIConfig struct {
	Enabled bool `yaml:"enabled"`
	// Patterns are extra regular expressions (RE2) to tokenize.
	Patterns        []string `yaml:"patterns"`
	TokenizeScripts bool     `yaml:"tokenize_scripts"`
	TokenizeResults bool     `yaml:"tokenize_results"`
}

// PolicyConfig is sandbox.policy: which tools a sandboxed script may call.
type PolicyConfig struct {
	DefaultAction string       `yaml:"default_action"`
	Rules         []RuleConfig `yaml:"rules"`
}

// RuleConfig allows or denies a tool name; "*" wildcards are allowed
// ("github__*").
type RuleConfig struct {
	Action string `yaml:"action"`
	Tool   string `yaml:"tool"`
}

// DefaultConfig is the section when the file says nothing: off, and when
// switched on, the defaults Options takes for zero values.
func DefaultConfig() Config {
	return Config{
		DockerImage:      DefaultImage,
		Scope:            ScopeSession,
		TimeoutSeconds:   int(DefaultTimeout / time.Second),
		ReaperIntervalMs: int(DefaultReaperInterval / time.Millisecond),
		MemoryLimit:      DefaultMemoryLimit,
		CPULimit:         DefaultCPULimit,
		PidsLimit:        DefaultPidsLimit,
		Network:          DefaultNetwork,
		WorkspaceMount:   DefaultWorkspaceMount,
		MaxOutputBytes:   DefaultMaxOutputBytes,
		BridgeSocketDir:  DefaultBridgeSocketDir,
		Runtime:          "runc",
		EnvAllowlist:     []string{"PATH", "HOME", "LANG", "TERM"},
		EnvBlocklist: []string{
			"OPENROUTER_API_KEY", "OPENAI_API_KEY", "TELEGRAM_BOT_TOKEN",
			"AWS_SECRET_ACCESS_KEY", "GROQ_API_KEY", "TELEGRAM_WEBHOOK_SECRET",
			"BRAVE_API_KEY", "BEAMCLAW_EMBEDDING_API_KEY", "BEAMCLAW_GATEWAY_TOKEN",
		},
		PII: PIIConfig{Enabled: true, Patterns: []string{}, TokenizeScripts: true, TokenizeResults: true},
		Policy: PolicyConfig{
			DefaultAction: "allow",
			Rules: []RuleConfig{
				{Action: "allow", Tool: "read_file"},
				{Action: "allow", Tool: "curl"},
				{Action: "deny", Tool: "bash"},
				{Action: "deny", Tool: "terminal"},
			},
		},
	}
}

// Validate records every problem of the section under p (keys relative to
// the section): exactly the checks New makes of the Options it becomes,
// so `config check` and `start` agree by construction.
func (c Config) Validate(p *setting.Problems) {
	c.Options().check(p)
}

// Options is the section as the Manager's Options. The wiring adds what
// the file does not hold: the install id, the resolved secret values,
// DOCKER_HOST, the bridge's tools, session liveness, scrubber, events.
func (c Config) Options() Options {
	rules := make([]PolicyRule, 0, len(c.Policy.Rules))
	for _, r := range c.Policy.Rules {
		rules = append(rules, PolicyRule(r))
	}
	return Options{
		Image: c.DockerImage, Scope: c.Scope,
		Timeout:        time.Duration(c.TimeoutSeconds) * time.Second,
		ReaperInterval: time.Duration(c.ReaperIntervalMs) * time.Millisecond,
		MemoryLimit:    c.MemoryLimit, CPULimit: c.CPULimit, PidsLimit: c.PidsLimit,
		Network: c.Network, WorkspaceMount: c.WorkspaceMount, MaxOutputBytes: c.MaxOutputBytes,
		BridgeSocketDir: c.BridgeSocketDir, Runtime: c.Runtime,
		EnvAllowlist: c.EnvAllowlist, EnvBlocklist: c.EnvBlocklist,
		PII: PIIOptions{Enabled: c.PII.Enabled, Patterns: c.PII.Patterns,
			TokenizeScripts: c.PII.TokenizeScripts, TokenizeResults: c.PII.TokenizeResults},
		Policy: PolicyOptions{DefaultAction: c.Policy.DefaultAction, Rules: rules},
	}
}
