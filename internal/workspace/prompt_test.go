package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// checkGolden compares got with testdata/<name>.golden, rewriting it
// under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

const skillsSection = `# Skills

Read a skill's SKILL.md with read_file before using it.

- github: Work with GitHub through the gh CLI. (/home/u/.beamclaw/skills/github/SKILL.md)`

func TestSystemPromptGolden(t *testing.T) {
	tests := []struct {
		name   string
		agent  string
		setup  func(t *testing.T, s *Store, dir string)
		extras PromptExtras
	}{
		{name: "fresh", agent: "default"},
		{
			name:  "empty_files_skipped",
			agent: "default",
			setup: func(t *testing.T, s *Store, dir string) {
				mustWrite(t, filepath.Join(dir, FileTools), "")
				mustWrite(t, filepath.Join(dir, FileAgents), "  \n\t\n")
				mustWrite(t, filepath.Join(dir, FileMemory), "- Ada prefers short answers.\n")
				if err := os.Remove(filepath.Join(dir, FileUser)); err != nil {
					t.Fatal(err)
				}
				if err := s.CompleteBootstrap("default"); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name:  "daily_logs",
			agent: "default",
			setup: func(t *testing.T, s *Store, dir string) {
				for date, text := range map[string]string{
					"2026-11-18": "too old to show",
					"2026-11-19": "Drafted the quarterly report.",
					"2026-11-20": "Sent the report to Bob.",
					"2026-11-21": "from the future, not shown",
				} {
					if err := s.AppendDaily("default", "", date, text); err != nil {
						t.Fatal(err)
					}
				}
			},
		},
		{
			name:  "skills_and_memory_extras",
			agent: "default",
			extras: PromptExtras{
				Skills: skillsSection,
				Memory: []Snippet{
					{Source: "MEMORY.md", Text: "Ada's cat is called Turing."},
					{Source: "memory/2026-11-02.md", Text: "Booked flights\nto Lisbon."},
					{Source: "blank", Text: "  "},
				},
			},
		},
		{name: "fallback", agent: "ghost", extras: PromptExtras{Skills: skillsSection}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustStore(t)
			if tt.agent != "ghost" {
				dir := mustCreate(t, s, tt.agent)
				if tt.setup != nil {
					tt.setup(t, s, dir)
				}
			}
			got, err := s.SystemPrompt(tt.agent, tt.extras)
			if err != nil {
				t.Fatalf("SystemPrompt: %v", err)
			}
			checkGolden(t, tt.name, got)
		})
	}
}

func TestSystemPromptOrder(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	for _, f := range Files() {
		mustWrite(t, filepath.Join(dir, f), "marker-"+f)
	}
	got, err := s.SystemPrompt("default", PromptExtras{})
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, f := range []string{"IDENTITY", "SOUL", "USER", "TOOLS", "AGENTS", "BOOTSTRAP", "MEMORY"} {
		i := strings.Index(got, "marker-"+f+".md")
		if i <= last {
			t.Fatalf("%s.md out of order in:\n%s", f, got)
		}
		last = i
	}
}

func TestSystemPromptSeesChanges(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	path := filepath.Join(dir, FileMemory)
	if _, err := s.SystemPrompt("default", PromptExtras{}); err != nil {
		t.Fatal(err)
	}
	// An outside editor writes a file of the same size: the new mtime
	// must invalidate the cache.
	old, _ := os.ReadFile(path)
	changed := strings.Repeat("z", len(old))
	mustWrite(t, path, changed)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	got, err := s.SystemPrompt("default", PromptExtras{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, changed) {
		t.Fatal("prompt still shows the old MEMORY.md")
	}
	if err := s.WriteFile("default", FileMemory, "via the store"); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.SystemPrompt("default", PromptExtras{}); !strings.Contains(got, "via the store") {
		t.Fatal("prompt misses a write made through the Store")
	}
}

func TestSystemPromptInvalidName(t *testing.T) {
	s := mustStore(t)
	if _, err := s.SystemPrompt("../etc", PromptExtras{}); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Fatalf("err = %v, want invalid", err)
	}
}

// BenchmarkSystemPrompt measures a warm-cache assembly (the budget is
// 1 ms): run with go test -run '^$' -bench SystemPrompt -benchmem.
func BenchmarkSystemPrompt(b *testing.B) {
	s := mustStore(b)
	dir := mustCreate(b, s, "default")
	mustWrite(b, filepath.Join(dir, FileMemory), strings.Repeat("- a remembered fact about the user and their work\n", 200))
	for _, date := range []string{"2026-11-19", "2026-11-20"} {
		if err := s.AppendDaily("default", "", date, strings.Repeat("did some work today. ", 100)); err != nil {
			b.Fatal(err)
		}
	}
	extras := PromptExtras{Skills: skillsSection, Memory: []Snippet{{Source: "MEMORY.md", Text: "fact"}}}
	if _, err := s.SystemPrompt("default", extras); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.SystemPrompt("default", extras); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSystemPromptConcurrentWithWrites(t *testing.T) {
	s := mustStore(t)
	mustCreate(t, s, "default")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 20 {
				if _, err := s.SystemPrompt("default", PromptExtras{}); err != nil {
					t.Error(err)
				}
				if err := s.AppendFile("default", FileMemory, fmt.Sprintf("- fact %d.%d", i, j)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, err := s.SystemPrompt("default", PromptExtras{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "- fact 3.19") {
		t.Fatal("final prompt misses the last write")
	}
}

// A user's prompt carries the agent's files and that user's own memory,
// not the agent's shared daily logs nor another user's memory.
func TestSystemPromptOfAUser(t *testing.T) {
	s := mustStore(t)
	mustCreate(t, s, "default")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AppendDaily("default", "", "", "shared: the old team log"))
	must(s.AppendDaily("default", "tg:1", "", "erin: booked the dentist"))
	must(s.AppendUserFile("default", "tg:1", FileMemory, "erin: allergic to kiwi"))
	must(s.WriteUserFile("default", "tg:1", FileUser, "Name: Erin"))
	must(s.AppendDaily("default", "tg:2", "", "lee: bought a kayak"))
	p, err := s.SystemPrompt("default", PromptExtras{User: "tg:1", Skills: skillsSection})
	must(err)
	for _, want := range []string{"# IDENTITY.md", "booked the dentist", "allergic to kiwi", "Name: Erin", "# USER.md of this user"} {
		if !strings.Contains(p, want) {
			t.Errorf("erin's prompt lacks %q", want)
		}
	}
	for _, not := range []string{"old team log", "kayak"} {
		if strings.Contains(p, not) {
			t.Errorf("erin's prompt holds %q", not)
		}
	}
	if i, j := strings.Index(p, skillsSection[:20]), strings.Index(p, "booked the dentist"); i < 0 || j < i {
		t.Error("the user's own memory must come after the skills (the shared prefix first)")
	}
	if shared, _ := s.SystemPrompt("default", PromptExtras{}); !strings.Contains(shared, "old team log") || strings.Contains(shared, "dentist") {
		t.Error("the agent's own prompt (memory_scope: agent) must hold its shared daily log and no user's")
	}
	users, err := s.Users("default")
	must(err)
	if len(users) != 2 {
		t.Errorf("Users = %v", users)
	}
}
