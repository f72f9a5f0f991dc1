package config

import (
	"time"

	"github.com/beamclaw/beamclaw-go/internal/cluster"

	"github.com/beamclaw/beamclaw-go/internal/console"

	"github.com/beamclaw/beamclaw-go/internal/a2a"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
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

// Default returns the built-in configuration: what runs with no config file.
// Each call returns a fresh value the caller may modify.
func Default() *Config {
	c := &Config{
		Core:      defaultCore(),
		Gateway:   defaultGateway(),
		Tools:     builtin.DefaultConfig(),
		Memory:    memory.DefaultConfig(),
		MCP:       mcp.DefaultConfig(),
		A2A:       a2a.DefaultConfig(),
		Sandbox:   sandbox.DefaultConfig(),
		Scheduler: scheduler.DefaultConfig(),
		Obs:       obs.DefaultConfig(),
		Cluster:   cluster.DefaultConfig(),
	}
	c.Gateway.Channels.registeredDefaults()
	return c
}

func defaultProvider(env, baseURL, model string) provider.Config {
	p := provider.Config{APIKey: Env(env), BaseURL: baseURL, Model: model}
	p.SetDefaults()
	return p
}

func defaultCore() Core {
	return Core{
		DefaultProvider:   "openrouter",
		FallbackProviders: []string{},
		Providers: map[string]provider.Config{
			"openrouter": defaultProvider("OPENROUTER_API_KEY", "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4-5"),
			"openai":     defaultProvider("OPENAI_API_KEY", "https://api.openai.com/v1", "gpt-4o"),
		},
		AgenticLoop:   loop.DefaultConfig(),
		AutonomyLevel: "supervised",
		ChannelAutonomy: map[string]string{
			"telegram": "supervised",
			"http":     "supervised",
			"ws":       "supervised",
			"a2a":      "supervised",
		},
		Sessions:        session.DefaultConfig(),
		Usage:           usage.DefaultConfig(),
		DefaultAgent:    "default",
		ShutdownTimeout: Duration{Duration: 10 * time.Second},
		Agents:          map[string]Agent{},
		Skills:          Skills{AllowFlagged: []string{}},
	}
}

func defaultGateway() Gateway {
	return Gateway{
		Server:  gateway.DefaultConfig(),
		Console: console.DefaultConfig(),
		Channels: Channels{
			TUI: TUI{Enabled: true},
		},
	}
}
