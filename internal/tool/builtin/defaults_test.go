package builtin_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

func TestDefaults(t *testing.T) {
	r := tool.New(tool.Options{})
	for _, tl := range builtin.Defaults(builtin.Options{Memory: builtin.MemoryOptions{Workspace: newMemWorkspace()},
		Skills: builtin.SkillOptions{Reader: mapSkills{}}}) {
		if err := r.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	type policy struct {
		Approval bool
		Min      beamclaw.Autonomy
		Risk     beamclaw.Risk
	}
	want := map[string]policy{
		"bash":             {true, beamclaw.Supervised, beamclaw.RiskHigh},
		"curl":             {false, beamclaw.Supervised, beamclaw.RiskMedium},
		"delete_file":      {true, beamclaw.Supervised, beamclaw.RiskHigh},
		"jq":               {false, beamclaw.ReadOnly, beamclaw.RiskLow},
		"read_file":        {false, beamclaw.ReadOnly, beamclaw.RiskLow},
		"skill":            {false, beamclaw.ReadOnly, beamclaw.RiskLow},
		"terminal":         {true, beamclaw.Supervised, beamclaw.RiskHigh},
		"web_search":       {false, beamclaw.ReadOnly, beamclaw.RiskLow},
		"workspace_memory": {false, beamclaw.ReadOnly, beamclaw.RiskMedium},
		"write_file":       {true, beamclaw.Supervised, beamclaw.RiskMedium},
	}
	got := map[string]policy{}
	for _, s := range r.Specs("main") {
		got[s.Def.Name] = policy{s.RequiresApproval, s.MinAutonomy, s.Risk}
		if _, err := tool.CompileSchema(s.Def.Parameters); err != nil {
			t.Errorf("%s: schema: %v", s.Def.Name, err)
		}
		if len(s.Def.Description) < 40 || s.Def.Source != "builtin" {
			t.Errorf("%s: description %q, source %q", s.Def.Name, s.Def.Description, s.Def.Source)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("specs (-want +got):\n%s", diff)
	}
	if n := len(builtin.Defaults(builtin.Options{})); n != len(want)-2 {
		t.Errorf("without a workspace store and skills Defaults has %d tools, want %d", n, len(want)-2)
	}
}
