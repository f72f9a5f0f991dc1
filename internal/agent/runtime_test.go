package agent

import (
	"context"
	"errors"
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

func newRuntimeClock(t *testing.T, backend string, clk clock.Clock, shared ...string) *Runtime {
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
		Memory: mo, AutoContextLimit: 2, DB: db, Clock: clk, SharedMemory: shared})
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
			if err := rt.Remember(ctx, "default", "local:ana", "coffee", "Ana takes her coffee black, no sugar."); err != nil {
				t.Fatal(err)
			}
			p, err := wholePrompt(ctx, rt, "default", "local:ana", "how does Ana take her coffee?")
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
			if err := rt.Forget(ctx, "default", "local:ana", "coffee"); err != nil {
				t.Fatal(err)
			}
			if hits, err := rt.Recall(ctx, "default", "local:ana", "coffee", 5); err != nil || len(hits) != 0 {
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
	p, err := wholePrompt(context.Background(), rt, "default", "local:ana", "")
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

// Under memory_scope: user (the default) what erin's conversations leave
// behind (a flush, the tool's MEMORY.md and USER.md, daily logs, notes)
// reaches neither lee's prompt nor lee's search; the agent's own files
// reach both; the shared daily log of before reaches nobody's prompt.
// Under memory_scope: agent everything is shared, as before.
func TestMemoryIsEachUsersOwn(t *testing.T) {
	const erin, lee = "tg:1001", "api:lee"
	for _, backend := range []string{memory.BackendBolt, memory.BackendMemory} {
		t.Run(backend, func(t *testing.T) {
			rt := newRuntime(t, backend)
			ctx := context.Background()
			files := rt.Files()
			mustDo(t, rt.ws.AppendDaily("default", "", "", "old shared log: marmalade"))
			mustDo(t, rt.ws.AppendFile("default", "MEMORY.md", "The team ships on Fridays.")) // the operator's
			mustDo(t, rt.Flush(ctx, "default", erin, "Erin's sister is called Quillon."))
			mustDo(t, files.AppendFile("default", erin, "MEMORY.md", "Erin collects zebu figurines."))
			mustDo(t, files.WriteFile("default", erin, "USER.md", "Name: Erin Vasquez"))
			mustDo(t, files.AppendDaily("default", erin, time.Now(), "Erin planned a trip to Oslo."))
			mustDo(t, rt.Remember(ctx, "default", erin, "pin", "Erin's locker code is 8812"))

			pe, err := wholePrompt(ctx, rt, "default", erin, "hello")
			mustDo(t, err)
			pl, err := wholePrompt(ctx, rt, "default", lee, "Quillon zebu Oslo locker Vasquez")
			mustDo(t, err)
			for _, word := range []string{"Quillon", "zebu", "Vasquez", "Oslo", "8812", "marmalade"} {
				if strings.Contains(pl, word) {
					t.Errorf("lee's prompt holds %q", word)
				}
			}
			for _, word := range []string{"Quillon", "zebu", "Vasquez", "Oslo", "Fridays"} {
				if !strings.Contains(pe, word) {
					t.Errorf("erin's prompt lacks her own %q", word)
				}
			}
			if !strings.Contains(pl, "Fridays") || strings.Contains(pe, "marmalade") {
				t.Error("the agent's MEMORY.md must reach both, its old shared daily log neither")
			}
			for _, q := range []string{"Quillon", "zebu", "Oslo", "locker code"} {
				hits, err := rt.Search(ctx, "default", lee, q, 5)
				mustDo(t, err)
				for _, h := range hits {
					if strings.Contains(h.Text, "Erin") {
						t.Errorf("lee's search for %q found erin's %q", q, h.Text)
					}
				}
				if hits, _ := rt.Search(ctx, "default", erin, q, 5); len(hits) == 0 {
					t.Errorf("erin's search for %q finds nothing of hers", q)
				}
			}
			if hits, _ := rt.Recall(ctx, "default", lee, "locker", 5); len(hits) != 0 {
				t.Errorf("lee recalls erin's notes: %v", hits)
			}
			if got, _ := files.ReadFile("default", lee, "MEMORY.md"); strings.Contains(got, "zebu") || !strings.Contains(got, "Fridays") {
				t.Errorf("lee reads MEMORY.md as %q", got)
			}

			// A run without a user reads the agent's files only and keeps
			// nothing: what it learned would be everybody's.
			pa, err := wholePrompt(ctx, rt, "default", "", "Quillon locker")
			mustDo(t, err)
			if !strings.Contains(pa, "Fridays") || strings.Contains(pa, "marmalade") || strings.Contains(pa, "Quillon") {
				t.Errorf("a run without a user got the wrong memory in its prompt")
			}
			for name, err := range map[string]error{
				"append":   files.AppendFile("default", "", "MEMORY.md", "anonymous was here"),
				"daily":    files.AppendDaily("default", "", time.Now(), "anonymous was here"),
				"remember": rt.Remember(ctx, "default", "", "k", "anonymous was here"),
				"flush":    rt.Flush(ctx, "default", "", "anonymous was here"),
			} {
				if !errors.Is(err, errNoUser) {
					t.Errorf("%s without a user: %v, want errNoUser", name, err)
				}
			}
			if hits, _ := rt.Search(ctx, "default", "", "Quillon zebu locker", 5); len(hits) != 0 {
				t.Errorf("a run without a user found %v", hits)
			}

			shared := newRuntimeClock(t, backend, nil, "default")
			mustDo(t, shared.Flush(ctx, "default", erin, "Erin's sister is called Quillon."))
			mustDo(t, shared.Remember(ctx, "default", erin, "pin", "Erin's locker code is 8812"))
			pl, err = wholePrompt(ctx, shared, "default", lee, "locker code")
			mustDo(t, err)
			if !strings.Contains(pl, "Quillon") || !strings.Contains(pl, "8812") {
				t.Error("memory_scope: agent must share the flush and the notes with every user")
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wholePrompt is the system prompt a run of userID gets, both parts.
func wholePrompt(ctx context.Context, rt *Runtime, agentID, userID, input string) (string, error) {
	stable, context, err := rt.Prompt(ctx, agentID, userID, input)
	return stable + context, err
}
