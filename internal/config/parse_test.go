package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

func TestParseGood(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want func(c *Config)
	}{
		{name: "empty file", yaml: "", want: func(*Config) {}},
		{name: "comments only", yaml: "# nothing\n", want: func(*Config) {}},
		{name: "empty section keeps defaults", yaml: "gateway:\ncore: ~\n", want: func(*Config) {}},
		{name: "null duration keeps default", yaml: "core:\n  shutdown_timeout:\n", want: func(*Config) {}},
		{
			name: "ollama via base_url, no key",
			yaml: `core:
  default_provider: ollama
  providers:
    ollama:
      api_key:
      base_url: http://127.0.0.1:11434/v1
      model: llama3.2
`,
			want: func(c *Config) {
				c.Core.DefaultProvider = "ollama"
				c.Core.Providers["ollama"] = provider.Config{Kind: "openai", APIKeys: []setting.Secret{}, BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.2",
					TimeoutSeconds: 120, FirstTokenTimeoutSeconds: 60, MaxRetries: 2, CacheBreakpoints: "auto"}
			},
		},
		{
			name: "override one provider field merges",
			yaml: "core:\n  providers:\n    openai:\n      model: gpt-4.1\n  fallback_providers: [openai]\n",
			want: func(c *Config) {
				p := c.Core.Providers["openai"]
				p.Model = "gpt-4.1"
				c.Core.Providers["openai"] = p
				c.Core.FallbackProviders = []string{"openai"}
			},
		},
		{
			name: "public bind with token",
			yaml: "gateway:\n  http:\n    addr: 0.0.0.0:18800\n  auth:\n    token: {env: BEAMCLAW_GATEWAY_TOKEN}\n",
			want: func(c *Config) {
				c.Gateway.HTTP.Addr = "0.0.0.0:18800"
				c.Gateway.Auth.Token = Env("BEAMCLAW_GATEWAY_TOKEN")
			},
		},
		{
			name: "mcp server with env and headers",
			yaml: `mcp:
  servers:
    - name: files
      command: npx
      args: [-y, "@modelcontextprotocol/server-filesystem", /srv]
      env: {DEBUG: "1", TOKEN: {env: FILES_TOKEN}}
    - name: remote
      transport: http
      url: https://mcp.example.com/mcp
      headers:
        Authorization: {env: REMOTE_AUTH}
      trust: true
      agents: [default]
`,
			want: func(c *Config) {
				c.MCP.Servers = []mcp.ServerEntry{
					{Name: "files", Transport: "stdio", Command: "npx",
						Args:           []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv"},
						Env:            map[string]EnvValue{"DEBUG": {Value: "1"}, "TOKEN": {Env: "FILES_TOKEN"}},
						TimeoutSeconds: 30, Enabled: true},
					{Name: "remote", Transport: "http", URL: "https://mcp.example.com/mcp",
						Headers:        map[string]EnvValue{"Authorization": {Env: "REMOTE_AUTH"}},
						TimeoutSeconds: 30, Enabled: true, Trust: true, Agents: []string{"default"}},
				}
			},
		},
		{
			name: "anchors, aliases and merge keys",
			yaml: `core:
  providers:
    a: &base
      base_url: http://127.0.0.1:8080/v1
      model: m
      max_retries: 0
    b:
      <<: *base
      model: other
`,
			want: func(c *Config) {
				c.Core.Providers["a"] = provider.Config{Kind: "openai", APIKeys: []setting.Secret{}, BaseURL: "http://127.0.0.1:8080/v1", Model: "m", TimeoutSeconds: 120, FirstTokenTimeoutSeconds: 60, CacheBreakpoints: "auto"}
				c.Core.Providers["b"] = provider.Config{Kind: "openai", APIKeys: []setting.Secret{}, BaseURL: "http://127.0.0.1:8080/v1", Model: "other", TimeoutSeconds: 120, FirstTokenTimeoutSeconds: 60, CacheBreakpoints: "auto"}
			},
		},
		{
			name: "numbers as strings and floats from ints",
			yaml: "gateway:\n  channels:\n    telegram:\n      allow_from: [123456789, alice]\nmemory:\n  search:\n    vector_weight: 1\n    bm25_weight: 0\nsandbox:\n  cpu_limit: 2\n",
			want: func(c *Config) {
				c.Gateway.Channels.Telegram.AllowFrom = []string{"123456789", "alice"}
				c.Memory.Search.VectorWeight, c.Memory.Search.BM25Weight = 1, 0
				c.Sandbox.CPULimit = "2"
			},
		},
		{
			name: "hour ranges",
			yaml: "scheduler:\n  heartbeat:\n    active_hours: [22, 6]\n",
			want: func(c *Config) { c.Scheduler.Heartbeat.ActiveHours = HourRange{22, 6} },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := Default()
			tt.want(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseBad(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // each a substring of one error, in order
	}{
		{name: "unknown key with suggestion", yaml: "gateway:\n  http:\n    adr: 127.0.0.1:1\n",
			want: []string{`config.yaml:3: gateway.http.adr: unknown key (did you mean "addr"?)`}},
		{name: "unknown section", yaml: "gatway: {}\n",
			want: []string{`config.yaml:1: gatway: unknown key (did you mean "gateway"?)`}},
		{name: "wrong type int", yaml: "core:\n  session_ttl_seconds: soon\n",
			want: []string{"config.yaml:2: core.session_ttl_seconds: expected an integer, got a string"}},
		{name: "wrong type bool", yaml: "core:\n  session_persistence: 1\n",
			want: []string{"config.yaml:2: core.session_persistence: expected true or false, got an integer"}},
		{name: "mapping for scalar", yaml: "core:\n  default_provider: {a: b}\n",
			want: []string{"config.yaml:2: core.default_provider: expected a string, got a mapping"}},
		{name: "list for section", yaml: "obs: [1]\n",
			want: []string{"config.yaml:1: obs: expected a mapping, got a list"}},
		{name: "scalar document", yaml: "hello\n", want: []string{"config.yaml:1: expected a mapping, got a string"}},
		{name: "duplicate key", yaml: "obs:\n  queue_size: 1\n  queue_size: 2\n",
			want: []string{"config.yaml:3: obs.queue_size: duplicate key"}},
		{name: "bare duration", yaml: "core:\n  shutdown_timeout: 10\n",
			want: []string{"config.yaml:2: core.shutdown_timeout: a bare number has no unit"}},
		{name: "bad duration", yaml: "core:\n  shutdown_timeout: soon\n",
			want: []string{"config.yaml:2: core.shutdown_timeout: invalid duration"}},
		{name: "hour range length", yaml: "core:\n  maintenance:\n    quiet_hours: [1]\n",
			want: []string{"config.yaml:3: core.maintenance.quiet_hours: expected a list of 2 items"}},
		{name: "integer overflow", yaml: "obs:\n  queue_size: 99999999999999999999\n",
			want: []string{"config.yaml:2: obs.queue_size: expected an integer"}},
		{name: "syntax error", yaml: "core:\n  a: b\n c: d\n", want: []string{"config.yaml:2: syntax error"}},
		{name: "two documents", yaml: "obs: {}\n---\nobs: {}\n", want: []string{"config.yaml: more than one YAML document"}},
		{name: "unknown key in list item", yaml: "mcp:\n  servers:\n    - name: a\n      command: x\n      comand: y\n",
			want: []string{`config.yaml:5: mcp.servers[0].comand: unknown key (did you mean "command"?)`}},
		{name: "literal secret", yaml: "tools:\n  web_search:\n    api_key: hunter2\n",
			want: []string{"config.yaml:3: tools.web_search.api_key: secret fields take {env: VAR}, not a literal value"}},
		{name: "env ref bad shape", yaml: "tools:\n  web_search:\n    api_key: {var: X}\n",
			want: []string{"config.yaml:3: tools.web_search.api_key: expected exactly one key, env"}},
		{name: "env ref bad name", yaml: "tools:\n  web_search:\n    api_key: {env: 1X}\n",
			want: []string{`tools.web_search.api_key: env: "1X" is not a valid environment variable name`}},
		{name: "secret as list", yaml: "tools:\n  web_search:\n    api_key: [X]\n",
			want: []string{"config.yaml:3: tools.web_search.api_key: expected {env: VAR}, got a list"}},
		{name: "validation located", yaml: "core:\n  autonomy_level: yolo\n",
			want: []string{`config.yaml:2: core.autonomy_level: "yolo" is not one of read_only, supervised, full`}},
		{name: "public bind without token", yaml: "gateway:\n  http:\n    addr: 0.0.0.0:18800\n",
			want: []string{"config.yaml:3: gateway.http.addr: refusing to bind 0.0.0.0:18800 without gateway.auth.token"}},
		{name: "all-interfaces bind without token", yaml: "gateway:\n  http:\n    addr: \":18800\"\n",
			want: []string{"refusing to bind :18800 without gateway.auth.token"}},
		{
			name: "several decode errors at once",
			yaml: "core:\n  session_ttl: 1\n  session_sharing: [x]\ngateway:\n  http:\n    port: 1\nfoo: 1\n",
			want: []string{
				`config.yaml:2: core.session_ttl: unknown key (did you mean "session_ttl_seconds"?)`,
				"config.yaml:3: core.session_sharing: expected a string, got a list",
				"config.yaml:6: gateway.http.port: unknown key",
				"config.yaml:7: foo: unknown key",
			},
		},
		{
			name: "several validation errors at once, sorted by line",
			yaml: "obs:\n  log:\n    level: loud\ncore:\n  agentic_loop:\n    compaction_threshold_pct: 30\n    compaction_target_pct: 50\n  default_provider: nope\n",
			want: []string{
				`config.yaml:3: obs.log.level: "loud" is not one of`,
				"config.yaml:7: core.agentic_loop.compaction_target_pct: must be below compaction_threshold_pct (30), got 50",
				`config.yaml:8: core.default_provider: "nope" is not a configured provider`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("config.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			ps := Problems(err)
			if len(ps) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(tt.want), err)
			}
			for i, w := range tt.want {
				if !strings.Contains(ps[i].Error(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, ps[i].Error(), w)
				}
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "config.yaml" {
				t.Errorf("errors.As(*Error) = %+v", ce)
			}
		})
	}
}

func TestAliasBombIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("x0: &a0 {telegram: full}\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x%d: &a%d {<<: [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("core:\n  channel_autonomy: *a9\n")
	_, err := Parse("bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "core.channel_autonomy: document too large") {
		t.Fatalf("err = %v", err)
	}
}
