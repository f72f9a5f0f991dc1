package config

import (
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   []string // "key: message fragment", one per expected problem
	}{
		{"ok default", func(*Config) {}, nil},
		{"loopback v6 and localhost", func(c *Config) { c.Gateway.HTTP.Addr = "[::1]:0" }, nil},
		{"localhost", func(c *Config) { c.Gateway.HTTP.Addr = "localhost:18800" }, nil},
		{"public with token", func(c *Config) {
			c.Gateway.HTTP.Addr = "0.0.0.0:18800"
			c.Gateway.Auth.Token = Env("TOK")
		}, nil},
		{"public without token", func(c *Config) { c.Gateway.HTTP.Addr = "0.0.0.0:18800" },
			[]string{"gateway.http.addr: refusing to bind 0.0.0.0:18800 without gateway.auth.token"}},
		{"bad addr", func(c *Config) { c.Gateway.HTTP.Addr = "18800" }, []string{`gateway.http.addr: "18800" is not host:port`}},
		{"bad port", func(c *Config) { c.Gateway.HTTP.Addr = "127.0.0.1:70000" }, []string{`gateway.http.addr: port "70000" must be 0-65535`}},
		{"cors origins", func(c *Config) {
			c.Gateway.HTTP.CORSOrigins = []string{"https://chat.example.com", "http://localhost:3000", "*", "https://x.example/app"}
		}, []string{
			`gateway.http.cors_origins[2]: "*" is not an origin`,
			`gateway.http.cors_origins[3]: "https://x.example/app" is not an origin`,
		}},
		{"pct range", func(c *Config) { c.Core.AgenticLoop.CompactionThresholdPct = 101 },
			[]string{"core.agentic_loop.compaction_threshold_pct: must be between 1 and 100, got 101"}},
		{"target above threshold", func(c *Config) { c.Core.Maintenance.IdleCompactionTargetPct = 20 },
			[]string{"core.maintenance.idle_compaction_target_pct: must be below idle_compaction_threshold_pct (20), got 20"}},
		{"enums", func(c *Config) {
			c.Core.AutonomyLevel = "yolo"
			c.Core.SessionSharing = "global"
			c.Gateway.Channels.Telegram.Mode = "push"
			c.Gateway.Channels.Telegram.DMPolicy = "anyone"
			c.Memory.Backend = "ets"
			c.Obs.Log.Format = "xml"
			c.Obs.Log.Level = "trace"
			c.Tools.RemoteHighRisk = "allow"
			c.Scheduler.DefaultAutonomy = "auto"
		}, []string{
			`core.autonomy_level: "yolo" is not one of read_only, supervised, full`,
			`core.session_sharing: "global"`,
			`gateway.channels.telegram.mode: "push"`,
			`gateway.channels.telegram.dm_policy: "anyone"`,
			`tools.remote_high_risk: "allow"`,
			`memory.backend: "ets" is not one of memory, bbolt`,
			`scheduler.default_autonomy: "auto"`,
			`obs.log.level: "trace"`,
			`obs.log.format: "xml"`,
		}},
		{"providers", func(c *Config) {
			c.Core.DefaultProvider = "openruter"
			c.Core.FallbackProviders = []string{"openai", "openai", "groq"}
			c.Core.Providers["bad name!"] = provider.Config{Kind: "openai", BaseURL: "ftp://x", TimeoutSeconds: 1, FirstTokenTimeoutSeconds: 1}
		}, []string{
			`core.providers.bad name!: "bad name!" is not a valid name`,
			`core.providers.bad name!.base_url: "ftp://x" is not an http(s) URL`,
			`core.providers.bad name!.model: must not be empty`,
			`core.default_provider: "openruter" is not a configured provider (did you mean "openrouter"?)`,
			`core.fallback_providers[1]: "openai" is listed twice`,
			`core.fallback_providers[2]: "groq" is not a configured provider`,
		}},
		{"channel autonomy and agents", func(c *Config) {
			c.Core.ChannelAutonomy["telegarm"] = "full"
			c.Core.ChannelAutonomy["tui"] = "root"
			c.Core.Agents["coder"] = Agent{Provider: "nope", AutonomyLevel: "max", MemoryScope: "team",
				InlineTools: []string{"read_file", "*", "rm -rf", ""}}
		}, []string{
			`core.channel_autonomy.telegarm: unknown channel (did you mean "telegram"?)`,
			`core.channel_autonomy.tui: "root"`,
			`core.agents.coder.provider: "nope" is not a configured provider`,
			`core.agents.coder.autonomy_level: "max"`,
			`core.agents.coder.memory_scope: "team" is not one of user, agent`,
			`core.agents.coder.inline_tools[2]: "rm -rf" is not a tool name`,
			`core.agents.coder.inline_tools[3]: "" is not a tool name`,
		}},
		{"durations", func(c *Config) {
			c.Core.ShutdownTimeout = Duration{Duration: -time.Second}
			c.Core.SessionTTLSeconds = 0
		}, []string{"core.session_ttl_seconds: must be at least 1", "core.shutdown_timeout: must be a positive duration"}},
		{"hours", func(c *Config) { c.Scheduler.Heartbeat.ActiveHours = HourRange{5, 5} },
			[]string{"scheduler.heartbeat.active_hours: must be [start, end] UTC hours"}},
		{"gateway lists", func(c *Config) {
			c.Gateway.TrustedProxies = []string{"10.0.0.0/8", "192.168.1.1", "proxy.local"}
			c.Gateway.WS.AllowedOrigins = []string{"https://app.example.com", "https://app.example.com/path", "*"}
		}, []string{
			`gateway.trusted_proxies[2]: "proxy.local" is not an IP address or CIDR`,
			`gateway.ws.allowed_origins[1]`, `gateway.ws.allowed_origins[2]`,
		}},
		{"telegram webhook", func(c *Config) {
			tg := &c.Gateway.Channels.Telegram
			tg.On, tg.Mode, tg.Token, tg.WebhookSecret = true, "webhook", Secret{}, Secret{}
		}, []string{
			"gateway.channels.telegram.token: required when the channel is enabled",
			"gateway.channels.telegram.webhook_url: webhook mode needs an https:// URL",
			"gateway.channels.telegram.webhook_secret: webhook mode needs a secret",
		}},
		{"mcp servers", func(c *Config) {
			c.MCP.ProtocolVersion = "latest"
			c.MCP.Servers = []mcp.ServerEntry{
				{Name: "fs", Transport: "stdio", Command: "npx", TimeoutSeconds: 30},
				{Name: "fs", Transport: "http", URL: "not a url", TimeoutSeconds: 30},
				{Name: "a b", Transport: "ws", TimeoutSeconds: 0, Env: map[string]EnvValue{"1BAD": {Value: "x"}}},
				{Name: "s", Transport: "stdio", TimeoutSeconds: 1},
			}
		}, []string{
			`mcp.protocol_version: "latest"`,
			`mcp.servers[1].name: "fs" is already the name of mcp.servers[0]`,
			`mcp.servers[1].url: "not a url" is not an http(s) URL`,
			`mcp.servers[2].name: "a b" is not a valid name`,
			`mcp.servers[2].transport: "ws" is not one of stdio, http`,
			`mcp.servers[2].env.1BAD: not a valid environment variable name`,
			`mcp.servers[2].timeout_seconds: must be at least 1`,
			`mcp.servers[3].command: required for transport stdio`,
		}},
		{"memory", func(c *Config) {
			c.Memory.Search.VectorWeight = 1.5
			c.Memory.Search.ChunkOverlap = 400
			c.Memory.Search.WorkspaceFiles = []string{"../etc/passwd"}
		}, []string{
			"memory.search.vector_weight: must be between 0 and 1, got 1.5",
			"memory.search.chunk_overlap: must be 0 or more and below chunk_size (400), got 400",
			`memory.search.workspace_files[0]: "../etc/passwd" must be a path inside the agent workspace`,
		}},
		{"sandbox and tools", func(c *Config) {
			c.Sandbox.Scope = "global"
			c.Sandbox.MemoryLimit = "lots"
			c.Sandbox.CPULimit = "-1"
			c.Sandbox.PII.Patterns = []string{"("}
			c.Sandbox.Policy.Rules = append(c.Sandbox.Policy.Rules, sandbox.RuleConfig{Action: "maybe"})
			c.Tools.FileRoots = []string{"relative/dir"}
			c.Tools.WebSearch.MaxResults = 50
		}, []string{
			`tools.file_roots[0]: "relative/dir" must be an absolute path`,
			"tools.web_search.max_results: must be between 1 and 20, got 50",
			`sandbox.scope: "global"`,
			`sandbox.memory_limit: "lots" is not a size of at least 16m`,
			`sandbox.cpu_limit: "-1" is not a positive number of CPUs`,
			"sandbox.pii.patterns[0]: invalid regular expression",
			`sandbox.policy.rules[4].action: "maybe"`,
			"sandbox.policy.rules[4].tool: must name a tool",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(c)
			ps := Problems(c.Validate())
			if len(ps) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(tt.want), c.Validate())
			}
			for i, w := range tt.want {
				if !strings.Contains(ps[i].Error(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, ps[i].Error(), w)
				}
			}
		})
	}
}

func TestValidateRuntime(t *testing.T) {
	long := strings.Repeat("t", MinTokenLen)
	tests := []struct {
		name   string
		mutate func(c *Config)
		vars   map[string]string
		want   []string
	}{
		{"no token configured", func(*Config) {}, nil, nil},
		{"token set and long", func(c *Config) { c.Gateway.Auth.Token = Env("TOK") }, map[string]string{"TOK": long}, nil},
		{"token unset", func(c *Config) { c.Gateway.Auth.Token = Env("TOK") }, nil,
			[]string{"gateway.auth.token: environment variable TOK is not set"}},
		{"token short", func(c *Config) { c.Gateway.Auth.Token = Env("TOK") }, map[string]string{"TOK": "short"},
			[]string{"gateway.auth.token: the value of TOK is too short (at least 32 characters)"}},
		{"telegram enabled, token unset", func(c *Config) { c.Gateway.Channels.Telegram.On = true }, nil,
			[]string{"gateway.channels.telegram.token: environment variable TELEGRAM_BOT_TOKEN is not set"}},
		{"telegram webhook", func(c *Config) {
			c.Gateway.Channels.Telegram.On = true
			c.Gateway.Channels.Telegram.Mode = "webhook"
		}, map[string]string{"TELEGRAM_BOT_TOKEN": "1:x"},
			[]string{"gateway.channels.telegram.webhook_secret: environment variable TELEGRAM_WEBHOOK_SECRET is not set"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.mutate(c)
			err := c.ValidateRuntime(env(tt.vars))
			ps := Problems(err)
			if len(ps) != len(tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(ps[i].Error(), w) {
					t.Errorf("problem %d = %q, want %q", i, ps[i].Error(), w)
				}
				if strings.Contains(ps[i].Error(), "short") && strings.Contains(ps[i].Error(), "\"short\"") {
					t.Error("secret value echoed")
				}
			}
		})
	}
}

func TestMissingSecrets(t *testing.T) {
	c := Default()
	c.MCP.Servers = []mcp.ServerEntry{{Name: "a", Transport: "stdio", Command: "x", TimeoutSeconds: 1,
		Env: map[string]EnvValue{"T": {Env: "MCP_T"}, "L": {Value: "lit"}}}}
	got := c.MissingSecrets(env(map[string]string{"OPENAI_API_KEY": "k", "GROQ_API_KEY": "g"}))
	want := []string{
		"core.providers.openrouter.api_key",
		"gateway.channels.telegram.token",
		"gateway.channels.telegram.webhook_secret",
		"mcp.servers[0].env.T",
		"memory.embedding.api_key",
		"tools.web_search.api_key",
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("MissingSecrets = %v\nwant %v", got, want)
	}
}

func TestListenHost(t *testing.T) {
	c := Default()
	if got := c.Gateway.ListenHost(); got != "127.0.0.1" || !gateway.IsLoopback(got) {
		t.Fatal(got)
	}
	c.Gateway.HTTP.Addr = ":18800"
	if got := c.Gateway.ListenHost(); got != "" || gateway.IsLoopback(got) {
		t.Fatal(got)
	}
}

func TestProviderProblems(t *testing.T) {
	c := Default()
	c.Core.Providers = map[string]provider.Config{
		"openai": {BaseURL: "https://api.openai.com/v1", Model: "m", APIKey: Env("OPENAI_KEY")},
		"local":  {BaseURL: "http://127.0.0.1:11434/v1", Model: "m"},
		"groq":   {BaseURL: "https://api.groq.com/v1", Model: "m", APIKey: Env("GROQ_KEY")},
	}
	c.Core.DefaultProvider, c.Core.FallbackProviders = "openai", nil
	c.Core.Agents = map[string]Agent{"coder": {Provider: "groq"}, "home": {Provider: "local"}}
	env := map[string]string{"GROQ_KEY": "x"}
	got := c.ProviderProblems(func(k string) string { return env[k] }, []string{"default", "coder"})
	want := []string{
		"provider openai: OPENAI_KEY is not set, so every call to it fails (export it before starting)",
		"agent default has no usable provider: no key for openai (set it, or name a provider with one in core.agents.default.provider)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
