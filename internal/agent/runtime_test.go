package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/memory"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newRuntime(t *testing.T, backend string) *Runtime {
	t.Helper()
	return newRuntimeClock(t, backend, nil)
}

func newRuntimeClock(t *testing.T, backend string, clk clock.Clock) *Runtime {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	mo := memory.DefaultOptions()
	mo.Backend = backend
	rt := New(Options{AgentsDir: filepath.Join(dir, "agents"), SkillsDir: filepath.Join(dir, "skills"),
		Memory: mo, AutoContextLimit: 2, DB: db, Clock: clk})
	if err := rt.Ensure("default"); err != nil {
		t.Fatal(err)
	}
	return rt
}

// The prompt holds the workspace files, the bundled skills and, with
// auto context, the note that matches the input.
func TestPromptAssemblesWorkspaceSkillsAndMemory(t *testing.T) {
	for _, backend := range []string{memory.BackendBolt, memory.BackendMemory} {
		t.Run(backend, func(t *testing.T) {
			rt := newRuntime(t, backend)
			ctx := context.Background()
			if err := rt.Remember(ctx, "default", "coffee", "Ana takes her coffee black, no sugar."); err != nil {
				t.Fatal(err)
			}
			p, err := rt.Prompt(ctx, "default", "how does Ana take her coffee?")
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"IDENTITY.md", "daily-review", "coffee black"} {
				if !strings.Contains(p, want) {
					t.Errorf("prompt lacks %q", want)
				}
			}
			if !rt.Exists("default") || rt.Exists("ghost") {
				t.Error("Exists is wrong")
			}
			if err := rt.Forget(ctx, "default", "coffee"); err != nil {
				t.Fatal(err)
			}
			if hits, err := rt.Recall(ctx, "default", "coffee", 5); err != nil || len(hits) != 0 {
				t.Errorf("recall after forget: %v %v", hits, err)
			}
		})
	}
}

func TestSkillTextRefusesUnknown(t *testing.T) {
	rt := newRuntime(t, memory.BackendMemory)
	if _, err := rt.SkillText(context.Background(), "default", "no-such-skill"); err == nil ||
		!strings.Contains(err.Error(), "no skill named") {
		t.Errorf("err = %v", err)
	}
	text, err := rt.SkillText(context.Background(), "default", "daily-review")
	if err != nil || text == "" {
		t.Errorf("bundled skill: %q %v", text, err)
	}
}

// Skills lists what the prompt offers (the A2A card shows it).
func TestSkillsAreThePromptsSkills(t *testing.T) {
	rt := newRuntime(t, memory.BackendMemory)
	list, err := rt.Skills("default")
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Prompt(context.Background(), "default", "")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range list {
		found = found || s.Name == "daily-review"
		if !strings.Contains(p, "- "+s.Name+": ") {
			t.Errorf("skill %s is not in the prompt", s.Name)
		}
	}
	if !found {
		t.Errorf("skills %v lack daily-review", list)
	}
}

// A discovered catalog is reused for skillsFresh of the runtime's clock:
// a skill written meanwhile shows up once that has passed.
func TestSkillCatalogIsReusedWhileFresh(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC))
	rt := newRuntimeClock(t, memory.BackendMemory, clk)
	names := func() []string {
		t.Helper()
		list, err := rt.Skills("default")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range list {
			out = append(out, s.Name)
		}
		return out
	}
	if slices.Contains(names(), "fresh-skill") {
		t.Fatal("the skill is offered before it exists")
	}
	dir := filepath.Join(rt.SkillDirs("default")[0], "fresh-skill")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	skill := "---\nname: fresh-skill\ndescription: A skill written while the catalog is fresh.\n---\n\n# Fresh\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skill), 0o600); err != nil {
		t.Fatal(err)
	}
	clk.Advance(skillsFresh - time.Nanosecond)
	if slices.Contains(names(), "fresh-skill") {
		t.Fatal("the catalog was discovered again before skillsFresh passed")
	}
	clk.Advance(time.Nanosecond)
	if !slices.Contains(names(), "fresh-skill") {
		t.Fatalf("skills %v lack the new skill once skillsFresh passed", names())
	}
}
