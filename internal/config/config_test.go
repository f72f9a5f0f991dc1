package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/provider"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const examplePath = "../../config/beamclaw.example.yaml"

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
	if err := Default().ValidateRuntime(env(nil)); err != nil {
		t.Fatalf("Default().ValidateRuntime() = %v", err)
	}
}

func TestDefaultReturnsFreshValues(t *testing.T) {
	a := Default()
	a.Core.Providers["x"] = provider.Config{}
	a.Sandbox.EnvAllowlist[0] = "CHANGED"
	if diff := cmp.Diff(Default(), Default()); diff != "" {
		t.Fatal(diff)
	}
	if _, ok := Default().Core.Providers["x"]; ok || Default().Sandbox.EnvAllowlist[0] != "PATH" {
		t.Fatal("Default shares state between calls")
	}
}

// The example decoded onto an empty Config must equal Default(): every
// default is written in the example, with the same value.
func TestExampleEqualsDefault(t *testing.T) {
	got, _, err := decodeOver("beamclaw.example.yaml", mustRead(t, examplePath), &Config{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default(), got); diff != "" {
		t.Fatalf("example differs from Default() (-default +example):\n%s", diff)
	}
	if _, err := Load(examplePath); err != nil {
		t.Fatalf("Load(example) = %v", err)
	}
}

func leafKeys(c *Config) []string {
	var keys []string
	walk(reflect.ValueOf(c).Elem(), "", func(path string, _ reflect.Value) {
		keys = append(keys, path)
	})
	return keys
}

func TestExampleHasEveryKey(t *testing.T) {
	_, lines, err := decodeOver("beamclaw.example.yaml", mustRead(t, examplePath), Default())
	if err != nil {
		t.Fatal(err)
	}
	keys := leafKeys(Default())
	if len(keys) < 150 {
		t.Fatalf("only %d leaf keys found; walk is broken", len(keys))
	}
	for _, k := range keys {
		if _, ok := lines[k]; !ok {
			t.Errorf("key %s is missing from %s", k, examplePath)
		}
	}
}

// Every key name of the schema appears in docs/configuration.md.
func TestDocsMentionEveryKey(t *testing.T) {
	doc := string(mustRead(t, "../../docs/configuration.md"))
	seen := map[string]bool{}
	for _, k := range leafKeys(Default()) {
		if strings.Contains(k, "[") || strings.Contains(k, "providers.") || strings.Contains(k, "channel_autonomy.") {
			continue
		}
		if !seen[k] && !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("docs/configuration.md does not document `%s`", k)
		}
		seen[k] = true
	}
	for _, f := range []string{"api_key", "base_url", "model", "timeout_seconds", "first_token_timeout_seconds", "max_retries", "context_window", "cache_breakpoints",
		"transport", "command", "args", "env", "cwd", "url", "headers", "enabled", "trust", "agents", "autonomy_level", "memory_scope", "provider", "action", "tool"} {
		if !strings.Contains(doc, "`"+f+"`") {
			t.Errorf("docs/configuration.md does not document `%s`", f)
		}
	}
}

func TestLoadOptional(t *testing.T) {
	dir := t.TempDir()
	cfg, found, err := LoadOptional(filepath.Join(dir, "config.yaml"))
	if err != nil || found {
		t.Fatalf("missing file: found=%v err=%v", found, err)
	}
	if diff := cmp.Diff(Default(), cfg); diff != "" {
		t.Fatal(diff)
	}
	if _, err := Load(filepath.Join(dir, "config.yaml")); err == nil {
		t.Fatal("Load of a missing explicit file succeeded")
	}
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("core:\n  session_ttl_seconds: 60\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, found, err = LoadOptional(path)
	if err != nil || !found || cfg.Core.SessionTTLSeconds != 60 {
		t.Fatalf("found=%v err=%v ttl=%d", found, err, cfg.Core.SessionTTLSeconds)
	}
}

func TestLoadTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, make([]byte, MaxFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v", err)
	}
}

func TestPaths(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want string
		err  bool
	}{
		{name: "beamclaw home", vars: map[string]string{"BEAMCLAW_HOME": "/srv/bc", "HOME": "/home/u"}, want: "/srv/bc"},
		{name: "home fallback", vars: map[string]string{"HOME": "/home/u"}, want: "/home/u/.beamclaw"},
		{name: "nothing set", vars: nil, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HomeDir(env(tt.vars))
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("HomeDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	p := NewPaths("/srv/bc")
	want := Paths{
		Home: "/srv/bc", ConfigFile: "/srv/bc/config.yaml", DB: "/srv/bc/beamclaw.db",
		RunDir: "/srv/bc/run", Socket: "/srv/bc/run/beamclaw.sock", PIDFile: "/srv/bc/run/beamclaw.pid",
		LogDir: "/srv/bc/logs", LogFile: "/srv/bc/logs/beamclaw.log",
		AgentsDir: "/srv/bc/agents", SkillsDir: "/srv/bc/skills", KeyFile: "/srv/bc/secrets.key", InstallID: "/srv/bc/install-id",
		NATSDir: "/srv/bc/nats",
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Fatal(diff)
	}
	if got := p.AgentDir("coder"); got != "/srv/bc/agents/coder" {
		t.Fatal(got)
	}
}

func TestHourRangeContains(t *testing.T) {
	tests := []struct {
		name string
		r    HourRange
		h    int
		want bool
	}{
		{"inside", HourRange{8, 22}, 8, true},
		{"end exclusive", HourRange{8, 22}, 22, false},
		{"before", HourRange{8, 22}, 7, false},
		{"wrap late", HourRange{22, 2}, 23, true},
		{"wrap early", HourRange{22, 2}, 1, true},
		{"wrap outside", HourRange{22, 2}, 12, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Contains(tt.h); got != tt.want {
				t.Fatalf("Contains(%d) = %v", tt.h, got)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	cfg, err := Parse("c.yaml", []byte("core:\n  shutdown_timeout: 1m30s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Core.ShutdownTimeout.Duration != 90*time.Second {
		t.Fatal(cfg.Core.ShutdownTimeout)
	}
}

func BenchmarkParseExample(b *testing.B) {
	data := mustRead(b, examplePath)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("beamclaw.example.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
