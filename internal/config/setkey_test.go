package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config set/unset: a key set keeps the rest of the file (comments too),
// a bad key or value writes nothing and says why, a secret only as
// {env: VAR}; unset brings the default back.
func TestSetAndUnsetKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	const start = "# my daemon\ngateway:\n  http:\n    addr: 127.0.0.1:18800 # loopback\n"
	if err := os.WriteFile(path, []byte(start), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if err := SetKey(path, "gateway.http.addr", "127.0.0.1:18900"); err != nil {
		t.Fatal(err)
	}
	if err := SetKey(path, "core.agents.coder.model", "gpt-4o-mini"); err != nil {
		t.Fatal(err)
	}
	if err := SetKey(path, "gateway.auth.token", "{env: MY_GATEWAY_TOKEN}"); err != nil {
		t.Fatal(err)
	}
	got := read()
	for _, want := range []string{"# my daemon", "addr: 127.0.0.1:18900 # loopback", "coder:\n      model: gpt-4o-mini", "env: MY_GATEWAY_TOKEN"} {
		if !strings.Contains(got, want) {
			t.Errorf("the file after set lacks %q:\n%s", want, got)
		}
	}
	cfg, err := Load(path)
	if err != nil || cfg.Gateway.HTTP.Addr != "127.0.0.1:18900" || cfg.Core.Agents["coder"].Model != "gpt-4o-mini" {
		t.Fatalf("the file does not load as set: %v", err)
	}
	before := read()
	for _, tc := range []struct{ key, value, want string }{
		{"gateway.http.nope", "1", "nope"},
		{"gateway.http.max_body_bytes", "lots", "max_body_bytes"},
		{"gateway.rate_limit.requests", "0", "requests"},
		{"gateway.auth.token", "a-literal-secret-that-is-long-enough-1234", "env"},
		{"gateway..addr", "x", "dotted names"},
		{"gateway.http.addr", "[unclosed", "YAML"},
	} {
		err := SetKey(path, tc.key, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("set %s %q: %v, want an error naming %q", tc.key, tc.value, err, tc.want)
		}
		if read() != before {
			t.Fatalf("a refused set %s changed the file", tc.key)
		}
	}
	if err := UnsetKey(path, "gateway.http.addr"); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load(path); err != nil || cfg.Gateway.HTTP.Addr != Default().Gateway.HTTP.Addr {
		t.Errorf("after unset the address is not the default: %v", err)
	}
	if err := UnsetKey(path, "gateway.http.addr"); err == nil || !strings.Contains(err.Error(), "does not set") {
		t.Errorf("unset of a key the file does not set: %v", err)
	}
}
