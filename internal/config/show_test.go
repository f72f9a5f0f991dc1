package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

func TestShowMarksSecrets(t *testing.T) {
	c := Default()
	c.MCP.Servers = []mcp.ServerEntry{{Name: "a", Transport: "http", URL: "http://127.0.0.1:1/mcp", TimeoutSeconds: 1,
		Headers: map[string]EnvValue{"Authorization": {Env: "MCP_AUTH"}, "X-Mode": {Value: "fast"}}}}
	vars := map[string]string{"OPENAI_API_KEY": "sk-should-never-appear-0123456789", "MCP_AUTH": "Bearer hidden-value-xyz"}
	out, err := c.Show(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		"api_key: {env: OPENAI_API_KEY} # (set)",
		"api_key: {env: OPENROUTER_API_KEY} # (unset)",
		"token: null # (none)",
		"Authorization: {env: MCP_AUTH} # (set)",
		"X-Mode: fast",
		"shutdown_timeout: 10s",
		"quiet_hours: [2, 4]",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Show output lacks %q", want)
		}
	}
	for _, v := range vars {
		if strings.Contains(s, v) {
			t.Fatalf("Show printed a secret value")
		}
	}
	back, err := Parse("show.yaml", out)
	if err != nil {
		t.Fatalf("Show output does not parse: %v", err)
	}
	if diff := cmp.Diff(c, back, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	c := Default()
	c.Core.DefaultProvider = "local"
	c.Core.Providers["local"] = provider.Config{Kind: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "llama3.2", TimeoutSeconds: 5, FirstTokenTimeoutSeconds: 5}
	c.Core.FallbackProviders = []string{"openrouter", "openai"}
	c.Core.Agents["coder"] = Agent{Provider: "openai", Model: "gpt-4o", AutonomyLevel: "full"}
	c.Memory.Search.VectorWeight = 1
	c.Sandbox.CPULimit = "2"
	c.Gateway.Channels.Telegram.AllowFrom = []string{"12345", "true", "null"}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "#") {
		t.Fatal("Marshal output has comments")
	}
	back, err := Parse("m.yaml", out)
	if err != nil {
		t.Fatalf("Parse(Marshal()) = %v\n%s", err, out)
	}
	if diff := cmp.Diff(c, back, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}
