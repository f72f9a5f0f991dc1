package config

import (
	"github.com/beamclaw/beamclaw-go/internal/a2a"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/memory"
	"github.com/beamclaw/beamclaw-go/internal/obs"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// Config is the whole configuration file. Every field is plain data; the zero
// value is not useful, start from Default.
type Config struct {
	Core      Core             `yaml:"core"`
	Gateway   Gateway          `yaml:"gateway"`
	Tools     builtin.Config   `yaml:"tools"`
	Memory    memory.Config    `yaml:"memory"`
	MCP       mcp.Config       `yaml:"mcp"`
	A2A       a2a.Config       `yaml:"a2a"`
	Sandbox   sandbox.Config   `yaml:"sandbox"`
	Scheduler scheduler.Config `yaml:"scheduler"`
	Obs       obs.Config       `yaml:"obs"`
	Cluster   cluster.Config   `yaml:"cluster"`
}

// Core configures sessions, the agentic loop and LLM providers.
type Core struct {
	DefaultProvider   string                     `yaml:"default_provider"`
	FallbackProviders []string                   `yaml:"fallback_providers"`
	Providers         map[string]provider.Config `yaml:"providers"`
	AgenticLoop       loop.Config                `yaml:"agentic_loop"`
	AutonomyLevel     string                     `yaml:"autonomy_level"`
	ChannelAutonomy   map[string]string          `yaml:"channel_autonomy"`
	// Session keys (approvals, lifetimes, sharing, maintenance) are the
	// session package's section, inlined: core.session_ttl_seconds...
	Sessions `yaml:",inline"`
	// Usage keys (the rate sheet) are the usage package's, inlined:
	// core.costs.rates...
	Usage           `yaml:",inline"`
	DefaultAgent    string           `yaml:"default_agent"`
	ShutdownTimeout Duration         `yaml:"shutdown_timeout"`
	Agents          map[string]Agent `yaml:"agents"`
	Skills          Skills           `yaml:"skills"`
}

// Agent overrides core settings for one named agent; empty fields inherit.
type Agent struct {
	Provider      string `yaml:"provider"`
	Model         string `yaml:"model"`
	AutonomyLevel string `yaml:"autonomy_level"`
	// MemoryScope is whose memory the agent's daily logs, MEMORY.md and
	// USER.md writes, notes and flushes are: each user's own ("user", the
	// default) or the agent's, shared by all its users ("agent").
	MemoryScope string `yaml:"memory_scope"`
	// FallbackProviders is the agent's own fallback chain after its
	// provider (empty: core.fallback_providers).
	FallbackProviders []string `yaml:"fallback_providers"`
	// InlineTools names the built-in and other registered tools sent with
	// every model request; the rest are deferred behind tool_search and
	// listed by name in the system prompt. "*" sends every tool. Unset:
	// all but builtin.DeferredByDefault.
	InlineTools []string `yaml:"inline_tools"`
}

// MemoryScopes are the values of core.agents.<name>.memory_scope.
var MemoryScopes = []string{"user", "agent"}

// Skills configures SKILL.md skills.
type Skills struct {
	// AllowFlagged names skills the security scan flagged that may still
	// be offered to agents (after you read them).
	AllowFlagged []string `yaml:"allow_flagged"`
}

// Sessions is the session package's section, inlined in core.
type Sessions = session.Config

// Usage is the usage ledger's section (core.costs), inlined in core.
type Usage = usage.Config
