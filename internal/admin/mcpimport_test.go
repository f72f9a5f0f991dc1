package admin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/config"
)

const claudeJSON = `{
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_S3cretValueThatMustNeverPrint0123", "LOG_LEVEL": "debug"}},
    "remote api": {"url": "https://mcp.example.com/mcp?api_key=qqSecretQuery", "headers": {"Authorization": "Bearer tokTopSecret123"}},
    "cli-key": {"command": "tool", "args": ["--api-key=sk-abcdefghijklmnopqrstuvwxyz"]},
    "off": {"command": "x", "disabled": true}
  }
}`

// secrets are the values no output may contain.
var secrets = []string{"ghp_S3cret", "qqSecretQuery", "tokTopSecret123", "sk-abcdefghij"}

func writeImportFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	mustWrite(t, p, claudeJSON)
	return p
}

func TestMCPImportPrintsYAMLWithoutSecrets(t *testing.T) {
	env := testEnv(t, "")
	res, err := env.MCPImport(writeImportFile(t), false)
	if err != nil {
		t.Fatal(err)
	}
	all := res.YAML + strings.Join(res.Notes, "\n")
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("output contains the secret %q:\n%s", s, all)
		}
	}
	if diff := cmp.Diff([]string{"cli-key", "filesystem", "github", "off", "remote-api"}, res.Servers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"GITHUB_PERSONAL_ACCESS_TOKEN: {env: GITHUB_PERSONAL_ACCESS_TOKEN}",
		"LOG_LEVEL: debug",
		"Authorization: {env: MCP_REMOTE_API_AUTHORIZATION}",
		"api_key=REDACTED",
	} {
		if !strings.Contains(res.YAML, want) {
			t.Errorf("yaml lacks %q:\n%s", want, res.YAML)
		}
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{"export GITHUB_PERSONAL_ACCESS_TOKEN", "export MCP_REMOTE_API_AUTHORIZATION",
		`"remote api" is named "remote-api"`, "server cli-key: argument 1 looked like a credential"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	cfg, err := config.Parse("import.yaml", []byte(res.YAML))
	if err != nil {
		t.Fatalf("printed yaml is not valid config: %v\n%s", err, res.YAML)
	}
	enabled := map[string]bool{}
	for _, s := range cfg.MCP.Servers {
		enabled[s.Name] = s.Enabled
	}
	want := map[string]bool{"cli-key": false, "filesystem": true, "github": true, "off": false, "remote-api": false}
	if diff := cmp.Diff(want, enabled); diff != "" {
		t.Errorf("enabled (-want +got):\n%s", diff)
	}
}

func TestMCPImportWrite(t *testing.T) {
	tests := []struct {
		name     string
		existing *string // nil: no file
		wantErr  string
		keep     []string // text of the old file that must survive
	}{
		{name: "creates a missing file"},
		{name: "appends to a file without mcp", existing: ptr("# my settings\ngateway:\n  http:\n    addr: \"127.0.0.1:0\" # local only\n"),
			keep: []string{"# my settings", "# local only", "127.0.0.1:0"}},
		{name: "appends to existing servers", existing: ptr("mcp:\n  max_restarts: 3\n  servers:\n    - name: mine\n      command: run-mine\n"),
			keep: []string{"max_restarts: 3", "name: mine"}},
		{name: "fills an empty flow list", existing: ptr("mcp:\n  servers: []\n")},
		{name: "fills a null", existing: ptr("mcp:\n  servers:\n")},
		{name: "refuses existing names", existing: ptr("mcp:\n  servers:\n    - {name: github, command: gh-mcp}\n"),
			wantErr: "already has MCP servers named github"},
		{name: "refuses a non-list", existing: ptr("mcp:\n  servers: lots\n"), wantErr: "mcp.servers is not a list"},
		{name: "refuses an invalid result", existing: ptr("core:\n  nonsense_key: 1\n"), wantErr: "would not be valid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t, "")
			path := filepath.Join(env.getenv("BEAMCLAW_HOME"), "config.yaml")
			_ = os.Remove(path)
			if tc.existing != nil {
				mustWrite(t, path, *tc.existing)
			}
			res, err := env.MCPImport(writeImportFile(t), true)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if b, _ := os.ReadFile(path); string(b) != *tc.existing {
					t.Errorf("file changed after a refusal:\n%s", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Written != path {
				t.Errorf("written %q, want %q", res.Written, path)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range secrets {
				if strings.Contains(string(data), s) {
					t.Errorf("file contains the secret %q", s)
				}
			}
			for _, k := range tc.keep {
				if !strings.Contains(string(data), k) {
					t.Errorf("lost %q:\n%s", k, data)
				}
			}
			cfg, err := config.Load(path)
			if err != nil {
				t.Fatalf("written config does not load: %v\n%s", err, data)
			}
			if n := len(cfg.MCP.Servers); n < 5 {
				t.Errorf("%d servers after import:\n%s", n, data)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("mode: %v %v", fi.Mode(), err)
			}
			if _, err := os.Stat(path + ".bak"); (err == nil) != (tc.existing != nil) {
				t.Errorf("backup present = %v, old file existed = %v", err == nil, tc.existing != nil)
			}
		})
	}
}

func TestMCPImportRejectsBadInput(t *testing.T) {
	env := testEnv(t, "")
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty.json":   `{"mcpServers": {}}`,
		"garbage.json": `{"mcpServers": `,
		"nokey.json":   `{"other": {}}`,
	} {
		p := filepath.Join(dir, name)
		mustWrite(t, p, content)
		if _, err := env.MCPImport(p, false); err == nil {
			t.Errorf("%s imported", name)
		}
	}
	if _, err := env.MCPImport(filepath.Join(dir, "missing.json"), false); err == nil {
		t.Error("a missing file imported")
	}
}

func ptr(s string) *string { return &s }
