package skill

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/skills"
)

func TestBundledSkills(t *testing.T) {
	c, err := Discover(Options{Bundled: skills.FS, Env: fakeEnv("linux", []string{"gh"}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) != 0 {
		t.Fatalf("bundled skills with problems: %v", c.Problems)
	}
	if len(c.Skills) < 3 {
		t.Fatalf("want at least 3 bundled skills, got %d", len(c.Skills))
	}
	for _, s := range c.Skills {
		if len(s.Flags) != 0 {
			t.Errorf("bundled skill %s is flagged: %v", s.Name, s.Flags)
		}
		if !s.Status.Eligible || s.Source != SourceBundled || len(s.Body) < 200 {
			t.Errorf("bundled skill %s: eligible=%v source=%v body=%d bytes", s.Name, s.Status.Eligible, s.Source, len(s.Body))
		}
	}
	gh, ok := c.Get("github")
	if !ok || len(gh.Requires.Bins) != 1 || gh.Requires.Bins[0] != "gh" {
		t.Fatalf("github skill requires = %+v", gh.Requires)
	}
	noGH := Check(gh, fakeEnv("linux", nil, nil))
	if noGH.Eligible {
		t.Error("github skill eligible without gh")
	}
	plan := PlanInstall(gh, fakeEnv("linux", []string{"apt-get"}, nil))
	if len(plan.Steps) != 1 || plan.Steps[0].Argv[0] != "apt-get" {
		t.Errorf("github install plan on linux = %+v", plan)
	}
}
