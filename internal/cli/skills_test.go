package cli

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func catalog() protocol.SkillCatalog {
	return protocol.SkillCatalog{Agent: "default",
		Skills: []protocol.Skill{
			{Name: "github", Source: "bundled", Description: "Work with GitHub", Missing: []string{"binary gh not found on PATH"}, Installable: true},
			{Name: "shady", Source: "global", Description: "Pipes curl to sh", Eligible: true, Flags: []string{"pipes a download into a shell"}},
		},
		Problems: []string{"/h/skills/bad/SKILL.md: description is required"},
	}
}

func ghPlan() protocol.InstallPlan {
	return protocol.InstallPlan{Skill: "github",
		Steps:   []protocol.InstallStep{{Kind: "apt", Package: "gh", Argv: []string{"apt-get", "install", "-y", "gh"}}},
		Skipped: []string{"brew gh: not for linux"}}
}

func TestSkillsCommands(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		stdin     string
		plan      protocol.InstallPlan
		err       error
		wantCode  int
		wantOut   []string
		wantErr   []string
		wantRan   bool
		wantAgent string
	}{
		{name: "list", args: []string{"skills", "list"},
			wantOut: []string{"NAME    SOURCE   STATUS     FLAGS      DESCRIPTION", "github  bundled  missing 1  -          Work with GitHub",
				"shady   global   eligible   1 flagged  Pipes curl to sh"},
			wantErr: []string{"warning: skipped /h/skills/bad/SKILL.md: description is required"}},
		{name: "list for an agent", args: []string{"skills", "list", "--agent", "work"}, wantAgent: "work",
			wantOut: []string{"github"}},
		{name: "list fails", args: []string{"skills", "list"}, err: errString("config: line 3: bad"), wantCode: 1,
			wantErr: []string{"beamclaw: config: line 3: bad"}},
		{name: "status", args: []string{"skills", "status"},
			wantOut: []string{"missing  github (bundled)", "- binary gh not found on PATH", "fix: beamclaw skills install github",
				"ok       shady (global)", "! flagged: pipes a download into a shell", "1 of 2 skills eligible for agent default"}},
		{name: "show", args: []string{"skills", "show", "github"},
			wantOut: []string{"---\nname: github\n"}, wantErr: []string{"(bundled, eligible)"}},
		{name: "install confirmed", args: []string{"skills", "install", "github"}, stdin: "y\n", plan: ghPlan(), wantRan: true,
			wantOut: []string{"1. apt-get install -y gh    (apt gh)", "skipped brew gh: not for linux", "installed the dependencies of github"},
			wantErr: []string{"Run these commands? [y/N]"}},
		{name: "install declined", args: []string{"skills", "install", "github"}, stdin: "n\n", plan: ghPlan(), wantCode: 1,
			wantOut: []string{"apt-get install -y gh"}, wantErr: []string{"cancelled"}},
		{name: "install --yes", args: []string{"skills", "install", "github", "--yes"}, plan: ghPlan(), wantRan: true,
			wantOut: []string{"installed the dependencies of github"}},
		{name: "nothing to install", args: []string{"skills", "install", "github"},
			plan:    protocol.InstallPlan{Skill: "github", Skipped: []string{"apt gh: already installed"}},
			wantOut: []string{"nothing to install for github", "skipped apt gh: already installed"}},
		{name: "install fails", args: []string{"skills", "install", "github", "--yes"}, err: errString("install github: exit status 100"),
			wantCode: 1, wantErr: []string{"beamclaw: install github: exit status 100"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBackend{catalog: catalog(), plan: tc.plan, err: tc.err, content: "---\nname: github\n---\nUse gh.\n"}
			r := run(t, f, tc.stdin, tc.args...)
			r.want(t, tc.wantCode, tc.wantOut, tc.wantErr)
			if f.ran != tc.wantRan {
				t.Errorf("ran = %v, want %v", f.ran, tc.wantRan)
			}
			if f.lastAgent != tc.wantAgent {
				t.Errorf("agent = %q, want %q", f.lastAgent, tc.wantAgent)
			}
		})
	}
}
