package sandbox

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPolicy(t *testing.T) {
	p, err := newPolicy(PolicyOptions{DefaultAction: "allow", Rules: []PolicyRule{
		{Action: "deny", Tool: "github__delete_*"},
		{Action: "allow", Tool: "github__*"},
		{Action: "deny", Tool: "mcp:*"},
		{Action: "allow", Tool: "terminal"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		tool ToolInfo
		want bool
	}{
		{"default allow", ToolInfo{Name: "read_file", Source: "builtin"}, true},
		{"first match wins: deny before allow", ToolInfo{Name: "github__delete_repo", Source: "mcp:github"}, false},
		{"wildcard allow before source deny", ToolInfo{Name: "github__list", Source: "mcp:github"}, true},
		{"source wildcard", ToolInfo{Name: "linear__create", Source: "mcp:linear"}, false},
		{"bash denied by default", ToolInfo{Name: "bash", Source: "builtin"}, false},
		{"terminal allowed explicitly", ToolInfo{Name: "terminal", Source: "builtin"}, true},
		{"exec never", ToolInfo{Name: "exec", Source: "sandbox"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, why := p.Allows(tc.tool)
			if got != tc.want {
				t.Fatalf("Allows(%+v) = %v (%s), want %v", tc.tool, got, why, tc.want)
			}
			if !got && !strings.Contains(why, tc.tool.Name) {
				t.Errorf("reason %q does not name the tool", why)
			}
		})
	}
	deny, _ := newPolicy(PolicyOptions{DefaultAction: "deny", Rules: []PolicyRule{{Action: "allow", Tool: "read_file"}}})
	if ok, _ := deny.Allows(ToolInfo{Name: "curl"}); ok {
		t.Error("default deny allowed curl")
	}
	if ok, _ := deny.Allows(ToolInfo{Name: "read_file"}); !ok {
		t.Error("explicit allow ignored")
	}
}

func TestPolicyErrors(t *testing.T) {
	_, err := newPolicy(PolicyOptions{DefaultAction: "maybe", Rules: []PolicyRule{{Action: "permit", Tool: "x"}, {Action: "deny"}}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`policy.default_action: "maybe"`, `policy.rules[0].action: "permit"`, "policy.rules[1].tool: must name a tool"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestFilterEnv(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/me", "LANG=C", "TERM=xterm", "LC_ALL=C", "=bad", "noequals",
		"OPENAI_API_KEY=sk-x", "GITHUB_TOKEN=ghp_x", "DB_PASSWORD=p", "AWS_REGION=eu", "MY_SECRET_THING=s",
		"BEAMCLAW_HOME=/x", "DOCKER_HOST=unix:///x", "EDITOR=vi", "SAFE_NAME=contains-the-secret-value",
	}
	got := FilterEnv(environ, []string{"PATH", "HOME", "LANG", "TERM", "LC_*", "*_TOKEN", "AWS_*", "EDITOR", "SAFE_NAME", "BEAMCLAW_*", "DOCKER_*"},
		[]string{"editor"}, []string{"the-secret-value", "x"})
	want := []string{"PATH=/usr/bin", "HOME=/home/me", "LANG=C", "TERM=xterm", "LC_ALL=C"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FilterEnv (-want +got):\n%s", d)
	}
}
