package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func execInvocation(args string) beamclaw.Invocation {
	return beamclaw.Invocation{Args: json.RawMessage(args), CallID: "c1", SessionID: "s-exec",
		UserID: "u1", AgentID: "default", Channel: "telegram"}
}

func TestExecTool(t *testing.T) {
	m := startManager(t, testOptions(t))
	skills := t.TempDir()
	ctx := context.Background()
	tool, err := NewExecTool(ctx, m, ExecOptions{SkillDirs: func(agent string) []string {
		return []string{filepath.Join(skills, agent)}
	}})
	if err != nil {
		t.Fatal(err)
	}
	spec := tool.Spec()
	if spec.Def.Name != "exec" || spec.Risk != beamclaw.RiskHigh || spec.RequiresApproval || spec.MinAutonomy != beamclaw.Supervised {
		t.Errorf("spec %+v", spec)
	}
	if !json.Valid(spec.Def.Parameters) || !strings.Contains(spec.Def.Description, "beamclaw_tools") {
		t.Errorf("schema or description: %s / %s", spec.Def.Parameters, spec.Def.Description)
	}
	var out execOutput
	run := func(args string) {
		t.Helper()
		s, err := tool.Execute(ctx, execInvocation(args))
		if err != nil {
			t.Fatalf("Execute(%s): %v", args, err)
		}
		out = execOutput{}
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			t.Fatalf("result %q: %v", s, err)
		}
	}
	run(`{"language": "python", "code": "print(sum(range(10)))", "save_as": "sum-ten", "description": "Sum 0..9."}`)
	if out.ExitCode != 0 || out.Stdout != "45\n" || out.SavedSkill != "sum-ten" || out.SaveError != "" {
		t.Fatalf("first run: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(skills, "default", "sum-ten", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	run(`{"skill": "sum-ten"}`)
	if out.Stdout != "45\n" {
		t.Fatalf("saved skill run: %+v", out)
	}
	run(`{"language": "sh", "code": "echo no; exit 4", "save_as": "fails"}`)
	if out.ExitCode != 4 || out.SavedSkill != "" {
		t.Fatalf("a failing script was saved: %+v", out)
	}
	run(`{"language": "sh", "code": "sleep 30", "timeout_seconds": 1}`)
	if !out.TimedOut {
		t.Fatalf("timeout_seconds ignored: %+v", out)
	}
	if d := tool.CallTimeout([]byte(`{"timeout_seconds": 1}`)); d < time.Second || d > m.opts.Timeout+time.Minute {
		t.Errorf("CallTimeout = %s", d)
	}
	for _, bad := range []string{
		`{"language": "ruby", "code": "puts 1"}`, `{"language": "sh"}`, `{"code": "x", "skill": "y"}`,
		`{"language": "sh", "code": "true", "extra": 1}`, `{"skill": "missing"}`, `not json`,
	} {
		if _, err := tool.Execute(ctx, execInvocation(bad)); err == nil {
			t.Errorf("Execute(%s) succeeded", bad)
		} else if msg := beamclaw.UserMessage(err); msg == "internal error" {
			t.Errorf("Execute(%s): no user-facing message: %v", bad, err)
		}
	}
}

func TestExecToolRefusedWithReason(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"engine unreachable", Options{InstallID: "x", DockerHost: "unix:///nonexistent/docker.sock"}, "Docker engine is not reachable"},
		{"image missing", Options{InstallID: "x", Image: "beamclaw-sandbox-test-missing:none"}, "run `beamclaw sandbox build`"},
		{"runtime missing", Options{InstallID: "x", Runtime: "runsc"}, `runtime "runsc" is not registered`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.DockerHost == "" {
				tc.opts.Image = firstNonEmpty(tc.opts.Image, requireImage(t))
				tc.opts.BridgeSocketDir = shortTempDir(t)
			}
			m, err := New(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			_, err = NewExecTool(context.Background(), m, ExecOptions{})
			if err == nil {
				t.Skip("the engine has this runtime")
			}
			if msg := beamclaw.UserMessage(err); !strings.Contains(msg, tc.want) || beamclaw.KindOf(err) != beamclaw.KindUnavailable {
				t.Fatalf("error %q (kind %s), want %q", msg, beamclaw.KindOf(err), tc.want)
			}
			if st := m.Status(context.Background()); !strings.Contains(st.Problem, tc.want) {
				t.Errorf("Status.Problem = %q", st.Problem)
			}
		})
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestOptionsValidation(t *testing.T) {
	_, err := New(Options{InstallID: "bad id", Scope: "galaxy", Network: "wifi", WorkspaceMount: "x", MemoryLimit: "lots",
		CPULimit: "-1", BridgeSocketDir: "relative", Runtime: "kata", PII: PIIOptions{Enabled: true, Patterns: []string{"("}},
		Policy: PolicyOptions{DefaultAction: "perhaps"}})
	if beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"install_id", "scope", "network", "workspace_mount", "memory_limit", "cpu_limit",
		"bridge_socket_dir", "runtime", "pii.patterns[0]", "default_action"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}
