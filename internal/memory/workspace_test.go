package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/clock"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func newTestWorkspace(t *testing.T) (*Workspace, *hashEmbedder, *clock.Fake, string) {
	t.Helper()
	dir := t.TempDir()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	emb := &hashEmbedder{}
	opts := testOptions(clk)
	return NewWorkspace(NewIndex(opts.Search, emb), dir, opts, nil), emb, clk, dir
}

func mustRefresh(t *testing.T, w *Workspace) bool {
	t.Helper()
	changed, err := w.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return changed
}

func TestWorkspaceDailyWindow(t *testing.T) {
	w, _, clk, dir := newTestWorkspace(t)
	writeFile(t, filepath.Join(dir, "MEMORY.md"), "# Memory\nThe user likes tea.")
	for _, day := range []string{"2026-03-10", "2026-03-04", "2026-03-03", "2026-03-11"} {
		writeFile(t, filepath.Join(dir, "memory", day+".md"), "log of "+day)
	}
	writeFile(t, filepath.Join(dir, "memory", "notes.md"), "not a daily log")
	if !mustRefresh(t, w) {
		t.Fatal("first refresh reported no change")
	}
	want := []string{"MEMORY.md", "memory/2026-03-04.md", "memory/2026-03-10.md"}
	if diff := cmp.Diff(want, w.Index().Sources()); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	clk.Set(clk.Now().AddDate(0, 0, 1))
	mustRefresh(t, w)
	want = []string{"MEMORY.md", "memory/2026-03-10.md", "memory/2026-03-11.md"}
	if diff := cmp.Diff(want, w.Index().Sources()); diff != "" {
		t.Errorf("sources a day later (-want +got):\n%s", diff)
	}
}

func TestWorkspaceIncremental(t *testing.T) {
	w, emb, _, dir := newTestWorkspace(t)
	mem := filepath.Join(dir, "MEMORY.md")
	daily := filepath.Join(dir, "memory", "2026-03-10.md")
	writeFile(t, mem, "Project codename is Bluebird.")
	writeFile(t, daily, "Met Carol about the budget.")
	mustRefresh(t, w)
	calls, texts := emb.counts()
	if texts != 2 {
		t.Fatalf("embedded %d texts, want 2", texts)
	}

	if mustRefresh(t, w) {
		t.Error("refresh of unchanged files reported a change")
	}
	// Same content, new mtime: re-read and hashed, but not re-embedded.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(mem, later, later); err != nil {
		t.Fatal(err)
	}
	if mustRefresh(t, w) {
		t.Error("touching a file reported a change")
	}
	if c, _ := emb.counts(); c != calls {
		t.Errorf("Embed called %d times after no-op refreshes, want %d", c, calls)
	}

	writeFile(t, daily, "Met Carol about the budget. Follow up on Monday.")
	if !mustRefresh(t, w) {
		t.Error("edit not detected")
	}
	if _, texts = emb.counts(); texts != 3 {
		t.Errorf("embedded %d texts in total, want 3 (only the edited file)", texts)
	}
	r, err := w.Index().Search(context.Background(), Query{Text: "follow up Monday"})
	if err != nil || len(r.Hits) == 0 || r.Hits[0].Source != "memory/2026-03-10.md" {
		t.Errorf("search = %+v, %v", r, err)
	}

	if err := os.Remove(mem); err != nil {
		t.Fatal(err)
	}
	if !mustRefresh(t, w) {
		t.Error("deletion not detected")
	}
	if diff := cmp.Diff([]string{"memory/2026-03-10.md"}, w.Index().Sources()); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

func TestWorkspaceSymlinkOutIsNotIndexed(t *testing.T) {
	w, _, _, dir := newTestWorkspace(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	writeFile(t, outside, "top secret password")
	if err := os.Symlink(outside, filepath.Join(dir, "MEMORY.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "memory", "2026-03-10.md"), "today's log")
	_, err := w.Refresh(context.Background())
	if err == nil {
		t.Error("Refresh followed a symlink out of the workspace without error")
	}
	if diff := cmp.Diff([]string{"memory/2026-03-10.md"}, w.Index().Sources()); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

func TestWorkspaceMissingDir(t *testing.T) {
	opts := DefaultOptions()
	w := NewWorkspace(NewIndex(opts.Search, nil), filepath.Join(t.TempDir(), "nope"), opts, nil)
	if changed, err := w.Refresh(context.Background()); err != nil || changed {
		t.Errorf("Refresh = %v, %v", changed, err)
	}
}

// Serve re-checks the files every RefreshInterval of the clock (in a
// bubble, so synctest.Wait knows when it is parked again).
func TestWorkspaceServeRefreshesOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, _, clk, dir := newTestWorkspace(t)
		w.opts.RefreshInterval = time.Hour
		writeFile(t, filepath.Join(dir, "MEMORY.md"), "first")
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- w.Serve(ctx) }()
		synctest.Wait()
		if n := len(w.Index().Sources()); n != 1 {
			t.Fatalf("%d sources after the first refresh, want 1", n)
		}
		writeFile(t, filepath.Join(dir, "memory", "2026-03-10.md"), "second")
		clk.Advance(time.Hour - time.Nanosecond)
		synctest.Wait()
		if n := len(w.Index().Sources()); n != 1 {
			t.Fatalf("%d sources before the interval passed, want 1", n)
		}
		clk.Advance(time.Nanosecond)
		synctest.Wait()
		if n := len(w.Index().Sources()); n != 2 {
			t.Fatalf("%d sources after the interval, want 2", n)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Serve = %v", err)
		}
	})
}

func TestWorkspaceServe(t *testing.T) {
	w, _, _, dir := newTestWorkspace(t)
	w.opts.RefreshInterval = time.Hour
	writeFile(t, filepath.Join(dir, "MEMORY.md"), "served")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Serve(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for len(w.Index().Sources()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("Serve did not index within 10s")
		}
		select {
		case err := <-done:
			t.Fatalf("Serve returned early: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve = %v", err)
	}
	if w.String() == "" {
		t.Error("empty String")
	}
}
