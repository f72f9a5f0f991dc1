package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// watching runs s's Watcher for the test and waits until it answers.
func watching(tb testing.TB, s *Store, dir string) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Watcher().Serve(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Error(err)
		}
	})
	// Serve's goroutine may be slow to run on a loaded machine: wait for
	// it (bounded), never for a number of yields.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, ok := s.Watcher().generation(dir); ok {
			return
		}
		select {
		case err := <-done:
			tb.Fatalf("watcher: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	tb.Fatal("the watcher never started")
}

// With the Watcher running, a prompt reuses the unchanged workspace and
// still sees every change made before it is asked for, by the Store or by
// anyone else: written, created, removed, renamed, a new daily log.
func TestWatchedPromptSeesEveryChange(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	watching(t, s, dir)
	prompt := func() string {
		t.Helper()
		p, err := s.SystemPrompt("default", PromptExtras{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := prompt()
	if again := prompt(); again != first {
		t.Fatal("an unchanged workspace gave another prompt")
	}
	steps := []struct {
		what   string
		change func()
		want   string
		gone   string
	}{
		{"an outside write", func() { mustWrite(t, filepath.Join(dir, FileMemory), "outside edit one") }, "outside edit one", ""},
		{"a write through the store", func() {
			if err := s.WriteFile("default", FileMemory, "store edit two"); err != nil {
				t.Fatal(err)
			}
		}, "store edit two", "outside edit one"},
		{"a new daily log (and its directory)", func() {
			mustWrite(t, filepath.Join(dir, DailyDir, fixedNow.Format(DateLayout)+".md"), "today's entry three")
		}, "today's entry three", ""},
		{"an append to the daily log", func() {
			f, err := os.OpenFile(filepath.Join(dir, DailyDir, fixedNow.Format(DateLayout)+".md"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString("\nappended four")
			_ = f.Close()
		}, "appended four", ""},
		{"a file renamed into place", func() {
			tmp := filepath.Join(dir, ".tmp-user")
			mustWrite(t, tmp, "renamed five")
			if err := os.Rename(tmp, filepath.Join(dir, FileUser)); err != nil {
				t.Fatal(err)
			}
		}, "renamed five", ""},
		{"a file removed", func() {
			if err := os.Remove(filepath.Join(dir, FileMemory)); err != nil {
				t.Fatal(err)
			}
		}, "renamed five", "store edit two"},
	}
	for _, st := range steps {
		st.change()
		got := prompt()
		if !strings.Contains(got, st.want) {
			t.Errorf("%s: the prompt lacks %q", st.what, st.want)
		}
		if st.gone != "" && strings.Contains(got, st.gone) {
			t.Errorf("%s: the prompt still has %q", st.what, st.gone)
		}
	}
}

// The whole prompt is reused only for the same skills section and no
// recalled memory: another skills section, memory, or a changed file each
// give the prompt they ask for.
func TestWatchedPromptExtras(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	watching(t, s, dir)
	prompt := func(extras PromptExtras) string {
		t.Helper()
		p, err := s.SystemPrompt("default", extras)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := PromptExtras{Skills: "# Skills\n\n- one: the first skill"}
	first := prompt(one)
	if again := prompt(one); again != first || !strings.Contains(first, "the first skill") {
		t.Fatalf("the same skills gave another prompt:\n%s\n---\n%s", first, again)
	}
	if got := prompt(PromptExtras{Skills: "# Skills\n\n- two: the second skill"}); !strings.Contains(got, "the second skill") || strings.Contains(got, "the first skill") {
		t.Errorf("other skills:\n%s", got)
	}
	withMemory := one
	withMemory.Memory = []Snippet{{Source: "MEMORY.md", Text: "a recalled fact"}}
	if got := prompt(withMemory); !strings.Contains(got, "a recalled fact") || !strings.Contains(got, "the first skill") {
		t.Errorf("skills with memory:\n%s", got)
	}
	if got := prompt(one); strings.Contains(got, "a recalled fact") || !strings.Contains(got, "the first skill") {
		t.Errorf("memory stayed in a later prompt:\n%s", got)
	}
	mustWrite(t, filepath.Join(dir, FileMemory), "a changed memory file")
	if got := prompt(one); !strings.Contains(got, "a changed memory file") || !strings.Contains(got, "the first skill") {
		t.Errorf("after a change:\n%s", got)
	}
	if got := prompt(PromptExtras{}); strings.Contains(got, "the first skill") {
		t.Errorf("no skills asked, skills given:\n%s", got)
	}
}

// A workspace removed and made again is watched again.
func TestWatchedPromptAfterTheWorkspaceIsRecreated(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	watching(t, s, dir)
	if _, err := s.SystemPrompt("default", PromptExtras{}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.SystemPrompt("default", PromptExtras{}); !strings.HasPrefix(p, FallbackPrompt) {
		t.Fatalf("a removed workspace still gives its prompt:\n%s", p)
	}
	mustCreate(t, s, "default")
	mustWrite(t, filepath.Join(dir, FileMemory), "after the re-creation")
	if p, _ := s.SystemPrompt("default", PromptExtras{}); !strings.Contains(p, "after the re-creation") {
		t.Fatalf("the re-created workspace is not seen:\n%s", p)
	}
	mustWrite(t, filepath.Join(dir, FileMemory), "and changed again")
	if p, _ := s.SystemPrompt("default", PromptExtras{}); !strings.Contains(p, "and changed again") {
		t.Fatalf("a change in the re-created workspace is not seen:\n%s", p)
	}
}

func BenchmarkSystemPromptWatched(b *testing.B) {
	s := mustStore(b)
	dir := mustCreate(b, s, "default")
	mustWrite(b, filepath.Join(dir, FileMemory), strings.Repeat("- a remembered fact about the user and their work\n", 200))
	for _, date := range []string{"2026-11-19", "2026-11-20"} { // as BenchmarkSystemPrompt
		if err := s.AppendDaily("default", "", date, strings.Repeat("did some work today. ", 100)); err != nil {
			b.Fatal(err)
		}
	}
	watching(b, s, dir)
	extras := PromptExtras{Skills: skillsSection, Memory: []Snippet{{Source: "MEMORY.md", Text: "fact"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.SystemPrompt("default", extras); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSystemPromptOwnMemory is BenchmarkSystemPromptWatched for a
// user with memory of their own (memory_scope: user): the shared part
// from the cache, then the user's files and daily logs (a stat each).
func BenchmarkSystemPromptOwnMemory(b *testing.B) {
	s := mustStore(b)
	dir := mustCreate(b, s, "default")
	mustWrite(b, filepath.Join(dir, FileMemory), strings.Repeat("- a remembered fact about the user and their work\n", 200))
	const user = "tg:1001"
	for _, date := range []string{"2026-11-19", "2026-11-20"} {
		if err := s.AppendDaily("default", user, date, strings.Repeat("did some work today. ", 100)); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.AppendUserFile("default", user, FileMemory, strings.Repeat("- a fact about this user\n", 50)); err != nil {
		b.Fatal(err)
	}
	watching(b, s, dir)
	extras := PromptExtras{Skills: skillsSection, User: user, Memory: []Snippet{{Source: "MEMORY.md", Text: "fact"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.SystemPrompt("default", extras); err != nil {
			b.Fatal(err)
		}
	}
}

// With the Watcher running, a user's own memory in the prompt is reused
// while unchanged and still shows every change: through the Store, and a
// file edited by hand.
func TestWatchedPromptSeesTheUsersOwnChanges(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	const user = "tg:7"
	if err := s.AppendDaily("default", user, "", "first: planted tomatoes"); err != nil {
		t.Fatal(err)
	}
	watching(t, s, dir)
	prompt := func() string {
		t.Helper()
		p, err := s.SystemPrompt("default", PromptExtras{User: user})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if !strings.Contains(prompt(), "planted tomatoes") {
		t.Fatal("the user's daily log is not in their prompt")
	}
	if err := s.AppendDaily("default", user, "", "then: picked basil"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prompt(), "picked basil") {
		t.Error("a daily-log append is not seen")
	}
	udir, err := s.UserDir("default", user)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(udir, FileMemory), []byte("edited by hand: likes figs"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prompt(), "likes figs") {
		t.Error("a hand edit of the user's MEMORY.md is not seen")
	}
}
