package config

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/beamclaw/beamclaw-go/internal/scrub/scrubtest"
)

// A credential written literally is refused, and the error never contains
// it, wherever the secret lands.
func TestSecretLiteralRefusedWithoutEcho(t *testing.T) {
	places := []struct {
		name, yaml, key string
	}{
		{"provider key", "core:\n  providers:\n    openai:\n      api_key: %s\n", "core.providers.openai.api_key"},
		{"gateway token", "gateway:\n  auth:\n    token: %s\n", "gateway.auth.token"},
		{"telegram token", "gateway:\n  channels:\n    telegram:\n      token: %s\n", "gateway.channels.telegram.token"},
		{"mcp env literal", "mcp:\n  servers:\n    - name: a\n      command: x\n      env: {TOKEN: %s}\n", "mcp.servers[0].env.TOKEN"},
		{"mcp header literal", "mcp:\n  servers:\n    - name: a\n      transport: http\n      url: http://127.0.0.1:1/mcp\n      headers: {Authorization: %s}\n", "mcp.servers[0].headers.Authorization"},
		{"secret in env name", "tools:\n  web_search:\n    api_key: {env: %s}\n", "tools.web_search.api_key"},
		{"secret in wrong field", "core:\n  default_provider: %s\n", "core.default_provider"},
		{"secret as key", "core:\n  %s: 1\n", "core.<redacted>"},
	}
	for name, secret := range scrubtest.FakeSecrets() {
		for _, pl := range places {
			t.Run(name+"/"+pl.name, func(t *testing.T) {
				doc := strings.ReplaceAll(pl.yaml, "%s", yamlQuote(secret))
				_, err := Parse("config.yaml", []byte(doc))
				if err == nil {
					t.Fatal("accepted")
				}
				msg := err.Error()
				if strings.Contains(msg, strings.TrimSpace(secret)) || strings.Contains(msg, strings.TrimSpace(secret)[4:20]) {
					t.Fatalf("error echoes the secret: %s", msg)
				}
				if !strings.Contains(msg, pl.key) {
					t.Fatalf("error %q does not name %s", msg, pl.key)
				}
			})
		}
	}
}

func yamlQuote(s string) string {
	b, _ := yaml.Marshal(s)
	return strings.TrimSpace(string(b))
}

func TestSecretLiteralMessage(t *testing.T) {
	s := scrubtest.FakeSecrets()["openai proj"]
	_, err := Parse("config.yaml", []byte("core:\n  providers:\n    openai:\n      api_key: "+s+"\n"))
	want := "config.yaml:4: core.providers.openai.api_key: looks like a secret: write {env: VAR} instead"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestSecretResolve(t *testing.T) {
	getenv := env(map[string]string{"SET": "value"})
	tests := []struct {
		name   string
		s      Secret
		want   string
		wantOK bool
	}{
		{"set", Env("SET"), "value", true},
		{"unset", Env("UNSET"), "", false},
		{"none", Secret{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.s.Resolve(getenv)
			if got != tt.want || ok != tt.wantOK {
				t.Fatalf("Resolve = %q, %v", got, ok)
			}
		})
	}
	if v, ok := (EnvValue{Value: "lit"}).Resolve(getenv); v != "lit" || !ok {
		t.Fatal("literal EnvValue")
	}
	if v, ok := (EnvValue{Env: "SET"}).Resolve(getenv); v != "value" || !ok {
		t.Fatal("env EnvValue")
	}
	if _, ok := (EnvValue{Env: "UNSET"}).Resolve(getenv); ok {
		t.Fatal("unset EnvValue resolved")
	}
	if got := Env("X").String(); got != "{env: X}" {
		t.Fatal(got)
	}
}

// Secret and EnvValue also work with plain yaml.Unmarshal and Marshal.
func TestSecretYAMLInterfaces(t *testing.T) {
	var v struct {
		Key Secret   `yaml:"key"`
		Hdr EnvValue `yaml:"hdr"`
		D   Duration `yaml:"d"`
	}
	if err := yaml.Unmarshal([]byte("key: {env: K}\nhdr: plain\nd: 2s\n"), &v); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "key: {env: K}\nhdr: plain\nd: 2s\n"; got != want {
		t.Fatalf("Marshal = %q, want %q", got, want)
	}
	if err := yaml.Unmarshal([]byte("key: "+scrubtest.FakeSecrets()["groq"]+"\n"), &v); err == nil || !strings.Contains(err.Error(), "looks like a secret") {
		t.Fatalf("literal accepted: %v", err)
	}
}
