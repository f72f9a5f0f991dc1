package skill

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestPromptSection(t *testing.T) {
	ok := Status{Eligible: true}
	skills := []Skill{
		{Name: "github", Description: "Work with GitHub through gh.", Path: "/h/skills/github/SKILL.md", Status: ok},
		{Name: "missing-bin", Description: "Needs jq.", Path: "/h/skills/jq/SKILL.md", Status: Status{Missing: []string{"binary jq not found on PATH"}}},
		{Name: "flagged", Description: "Pipes curl to sh.", Path: "/h/flagged", Status: ok, Flags: []string{"line 3: x"}},
		{Name: "allowed", Description: "Flagged but allowed.", Path: "/h/allowed", Status: ok, Flags: []string{"line 3: x"}, Allowed: true},
		{Name: "summarize-url", Description: "Summarise a page.", Path: "bundled:summarize-url/SKILL.md", Status: ok},
	}
	got := PromptSection(skills)
	path := filepath.Join("testdata", "prompt_section.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("PromptSection (-want +got):\n%s", diff)
	}
	if s := PromptSection(skills[1:3]); s != "" {
		t.Errorf("no eligible skills should give an empty section, got %q", s)
	}
}
