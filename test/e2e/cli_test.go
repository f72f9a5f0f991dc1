package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgentCommands(t *testing.T) {
	h := newHome(t, "")
	r := h.must("agent", "create", "work")
	if !strings.Contains(r.stdout, "agent work created in "+filepath.Join(h.dir, "agents", "work")) {
		t.Errorf("create: %s", r.stdout)
	}
	if r := h.run("agent", "create", "../escape"); r.code == 0 || !strings.Contains(r.stderr, "agent names use") {
		t.Errorf("bad name: exit %d %s", r.code, r.stderr)
	}
	r = h.must("agent", "list")
	if !strings.Contains(r.stdout, "NAME") || !strings.Contains(r.stdout, "work") || !strings.Contains(r.stdout, "pending") {
		t.Errorf("list: %s", r.stdout)
	}
	r = h.must("agent", "show", "work")
	for _, want := range []string{"bootstrap   pending", "IDENTITY.md", "MEMORY.md"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q: %s", want, r.stdout)
		}
	}
	if r := h.must("agent", "show", "work", "--prompt"); !strings.Contains(r.stdout, "# IDENTITY.md") {
		t.Errorf("prompt: %s", r.stdout)
	}

	daily := filepath.Join(h.dir, "agents", "work", "memory", "2026-01-02.md")
	if err := os.WriteFile(daily, []byte("- a day\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := h.must("agent", "rehatch", "work", "--yes"); !strings.Contains(r.stdout, "1 daily logs kept") {
		t.Errorf("rehatch: %s", r.stdout)
	}
	h.must("agent", "rehatch", "work", "--all", "--yes")
	if _, err := os.Stat(daily); !os.IsNotExist(err) {
		t.Errorf("rehatch --all kept the daily log: %v", err)
	}
	// No answer on stdin is a no.
	if r := h.run("agent", "delete", "work"); r.code == 0 || !strings.Contains(r.stderr, "cancelled") {
		t.Errorf("delete without consent: exit %d %s", r.code, r.stderr)
	}
	h.must("agent", "delete", "work", "--yes")
	if r := h.run("agent", "show", "work"); r.code == 0 || !strings.Contains(r.stderr, `no agent named "work"`) {
		t.Errorf("show after delete: exit %d %s", r.code, r.stderr)
	}
}

func TestSkillsList(t *testing.T) {
	h := newHome(t, "")
	r := h.must("skills", "list")
	for _, want := range []string{"NAME", "daily-review", "github", "summarize-url", "bundled"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("skills list lacks %q: %s", want, r.stdout)
		}
	}
	r = h.must("skills", "list", "--json")
	var cat struct {
		Agent  string `json:"agent"`
		Skills []struct {
			Name string `json:"name"`
		} `json:"skills"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cat); err != nil || cat.Agent != "default" || len(cat.Skills) < 3 {
		t.Errorf("skills list --json: %v %s", err, r.stdout)
	}
	if r := h.must("skills", "show", "github"); !strings.HasPrefix(r.stdout, "---\nname: github") {
		t.Errorf("skills show: %s", r.stdout)
	}
}

func TestMCPImport(t *testing.T) {
	h := newHome(t, "")
	src := filepath.Join(t.TempDir(), "claude.json")
	const secret = "ghp_ThisMustNotAppearAnywhere0123456789"
	doc := `{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
		"env": {"GITHUB_TOKEN": "` + secret + `"}}}}`
	if err := os.WriteFile(src, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.must("mcp", "import", src)
	if !strings.Contains(r.stdout, "GITHUB_TOKEN: {env: GITHUB_TOKEN}") || !strings.Contains(r.stderr, "export GITHUB_TOKEN") {
		t.Errorf("import: %s\n%s", r.stdout, r.stderr)
	}
	h.must("mcp", "import", src, "--write")
	cfg, err := os.ReadFile(filepath.Join(h.dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if r := h.run("mcp", "import", src, "--write"); r.code == 0 || !strings.Contains(r.stderr, "already has MCP servers named github") {
		t.Errorf("second write: exit %d %s", r.code, r.stderr)
	}
	if all := r.stdout + r.stderr + string(cfg); strings.Contains(all, secret) {
		t.Error("the secret was printed or written")
	}
	h.must("config", "check")
	r = h.must("mcp", "list")
	if !strings.Contains(r.stdout, "github") || !strings.Contains(r.stdout, "not running") {
		t.Errorf("mcp list: %s", r.stdout)
	}
}

func TestPairList(t *testing.T) {
	h := newHome(t, "")
	r := h.must("pair", "list")
	if !strings.Contains(r.stdout, "no pending pairing requests") || !strings.Contains(r.stdout, "no approved peers") {
		t.Errorf("pair list without daemon: %s", r.stdout)
	}
	if r := h.run("pair", "telegram", "ABCD2345"); r.code == 0 || !strings.Contains(r.stderr, "no pending pairing request") {
		t.Errorf("approve unknown code: exit %d %s", r.code, r.stderr)
	}
	h.start()
	r = h.must("pair")
	if !strings.Contains(r.stdout, "no pending pairing requests") {
		t.Errorf("pair with daemon: %s", r.stdout)
	}
	if r := h.run("pair", "revoke", "telegram", "42"); r.code == 0 || !strings.Contains(r.stderr, "no approved peer") {
		t.Errorf("revoke through daemon: exit %d %s", r.code, r.stderr)
	}
	r = h.must("mcp", "list", "--json")
	if !strings.Contains(r.stdout, `"daemon": true`) {
		t.Errorf("mcp list with daemon: %s", r.stdout)
	}
	h.must("stop")
}
