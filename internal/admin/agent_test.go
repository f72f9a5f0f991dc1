package admin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAgentCommandsOnFiles(t *testing.T) {
	env := testEnv(t, "")
	ag, err := env.AgentCreate("work")
	if err != nil {
		t.Fatal(err)
	}
	if !ag.BootstrapPending || len(ag.Files) != 7 || !strings.HasSuffix(ag.Dir, filepath.Join("agents", "work")) {
		t.Fatalf("created agent: %+v", ag)
	}
	if _, err := env.AgentCreate("work"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second create: %v", err)
	}
	if _, err := env.AgentCreate("../evil"); err == nil || strings.Contains(err.Error(), "workspace.ValidName") ||
		!strings.Contains(err.Error(), "agent names use") {
		t.Errorf("bad name: %v", err)
	}
	if _, err := env.AgentCreate("assistant"); err != nil {
		t.Fatal(err)
	}
	list, err := env.AgentList()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range list {
		names = append(names, a.Name)
	}
	if diff := cmp.Diff([]string{"assistant", "work"}, names); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	prompt, err := env.AgentPrompt("work")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# IDENTITY.md", "# SOUL.md", "daily-review"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if _, err := env.AgentPrompt("ghost"); err == nil || !strings.Contains(err.Error(), "no agent named") {
		t.Errorf("prompt of a missing agent: %v", err)
	}
}

func TestAgentRehatchAndDelete(t *testing.T) {
	env := testEnv(t, "")
	ag, err := env.AgentCreate("work")
	if err != nil {
		t.Fatal(err)
	}
	soul := filepath.Join(ag.Dir, "SOUL.md")
	daily := filepath.Join(ag.Dir, "memory", "2026-01-02.md")
	mustWrite(t, soul, "edited soul\n")
	mustWrite(t, daily, "- met the user\n")
	if err := os.Remove(filepath.Join(ag.Dir, "BOOTSTRAP.md")); err != nil {
		t.Fatal(err)
	}

	ag, err = env.AgentRehatch("work", false)
	if err != nil {
		t.Fatal(err)
	}
	if !ag.BootstrapPending || cmp.Diff([]string{"2026-01-02"}, ag.DailyLogs) != "" {
		t.Errorf("rehatch kept: %+v", ag)
	}
	if b, _ := os.ReadFile(soul); string(b) == "edited soul\n" {
		t.Error("rehatch kept the edited SOUL.md")
	}
	ag, err = env.AgentRehatch("work", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ag.DailyLogs) != 0 {
		t.Errorf("rehatch --all kept daily logs: %v", ag.DailyLogs)
	}

	if err := env.AgentDelete("work"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ag.Dir); !os.IsNotExist(err) {
		t.Errorf("workspace still there: %v", err)
	}
	for name, fn := range map[string]func() error{
		"show":    func() error { _, err := env.AgentShow("work"); return err },
		"delete":  func() error { return env.AgentDelete("work") },
		"rehatch": func() error { _, err := env.AgentRehatch("work", false); return err },
	} {
		if err := fn(); err == nil || err.Error() != `no agent named "work"` {
			t.Errorf("%s of a deleted agent: %v", name, err)
		}
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
