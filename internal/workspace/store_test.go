package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestCreateWritesTemplates(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	for _, f := range Files() {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		want, _ := Template(f)
		if string(got) != want {
			t.Errorf("%s differs from its template", f)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, DailyDir)); err != nil || !fi.IsDir() {
		t.Fatalf("memory/ missing: %v", err)
	}
	err := s.Create("default")
	if beamclaw.KindOf(err) != beamclaw.KindConflict {
		t.Fatalf("second Create = %v, want conflict", err)
	}
	if err := s.Create("../evil"); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Fatalf("Create(../evil) = %v, want invalid", err)
	}
}

func TestEnsureIsIdempotent(t *testing.T) {
	s := mustStore(t)
	for range 2 {
		if err := s.Ensure("default"); err != nil {
			t.Fatalf("Ensure: %v", err)
		}
	}
	if err := s.WriteFile("default", FileUser, "Ada"); err != nil {
		t.Fatal(err)
	}
	if err := s.Ensure("default"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.ReadFile("default", FileUser)
	if got != "Ada" {
		t.Fatalf("Ensure overwrote USER.md: %q", got)
	}
}

func TestListGetDelete(t *testing.T) {
	s := mustStore(t)
	if agents, err := s.List(); err != nil || len(agents) != 0 {
		t.Fatalf("List on missing dir = %v, %v", agents, err)
	}
	mustCreate(t, s, "zed")
	mustCreate(t, s, "alpha")
	mustWrite(t, filepath.Join(s.AgentsDir(), "Not.An.Agent", "SOUL.md"), "x")
	if err := s.AppendDaily("alpha", "", "2026-11-19", "met Bob"); err != nil {
		t.Fatal(err)
	}
	agents, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range agents {
		names = append(names, a.Name)
	}
	if diff := cmp.Diff([]string{"alpha", "zed"}, names); diff != "" {
		t.Fatalf("List names (-want +got):\n%s", diff)
	}
	a := agents[0]
	if !a.BootstrapPending || len(a.Files) != 7 {
		t.Errorf("alpha = %+v, want 7 files and bootstrap pending", a)
	}
	if diff := cmp.Diff([]string{"2026-11-19"}, a.DailyLogs); diff != "" {
		t.Errorf("DailyLogs (-want +got):\n%s", diff)
	}
	if err := s.Delete("zed"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("zed"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Fatalf("Get after Delete = %v, want not_found", err)
	}
	if err := s.Delete("zed"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Fatalf("Delete twice = %v, want not_found", err)
	}
}

func TestRehatch(t *testing.T) {
	tests := []struct {
		name      string
		all       bool
		keepDaily bool
	}{
		{"keeps memory", false, true},
		{"all wipes", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustStore(t)
			dir := mustCreate(t, s, "default")
			if err := s.WriteFile("default", FileSoul, "grumpy"); err != nil {
				t.Fatal(err)
			}
			if err := s.CompleteBootstrap("default"); err != nil {
				t.Fatal(err)
			}
			if err := s.AppendDaily("default", "", "", "a thing happened"); err != nil {
				t.Fatal(err)
			}
			if err := s.Rehatch("default", tt.all); err != nil {
				t.Fatalf("Rehatch: %v", err)
			}
			soul, _ := s.ReadFile("default", FileSoul)
			if want, _ := Template(FileSoul); soul != want {
				t.Errorf("SOUL.md not restored: %q", soul)
			}
			if _, err := os.Stat(filepath.Join(dir, FileBootstrap)); err != nil {
				t.Errorf("BOOTSTRAP.md not restored: %v", err)
			}
			_, err := os.Stat(filepath.Join(dir, DailyDir, "2026-11-20.md"))
			if kept := err == nil; kept != tt.keepDaily {
				t.Errorf("daily log kept = %v, want %v (%v)", kept, tt.keepDaily, err)
			}
		})
	}
	s := mustStore(t)
	if err := s.Rehatch("ghost", false); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Fatalf("Rehatch(ghost) = %v, want not_found", err)
	}
}

func TestReadWriteAppendFile(t *testing.T) {
	s := mustStore(t)
	mustCreate(t, s, "default")
	if err := s.WriteFile("default", FileMemory, "- likes tea"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendFile("default", FileMemory, "- lives in Lyon\n"); err != nil {
		t.Fatal(err)
	}
	got, err := s.ReadFile("default", FileMemory)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("- likes tea\n- lives in Lyon\n", got); diff != "" {
		t.Fatalf("MEMORY.md (-want +got):\n%s", diff)
	}
	if err := s.AppendFile("default", FileMemory, "  \n"); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("blank append = %v, want invalid", err)
	}
	if err := s.WriteFile("default", "../../etc/passwd", "x"); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("WriteFile outside = %v, want invalid", err)
	}
	if _, err := s.ReadFile("nobody", FileMemory); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("ReadFile(nobody) = %v, want not_found", err)
	}
	big := make([]byte, MaxFileSize+1)
	if err := s.WriteFile("default", FileMemory, string(big)); beamclaw.KindOf(err) != beamclaw.KindTooLarge {
		t.Errorf("huge write = %v, want too_large", err)
	}
}

func TestCompleteBootstrapByBlankWrite(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	if err := s.WriteFile("default", FileBootstrap, "\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileBootstrap)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("BOOTSTRAP.md still there: %v", err)
	}
	if err := s.CompleteBootstrap("default"); err != nil {
		t.Fatalf("second completion: %v", err)
	}
	if _, err := s.ReadFile("default", FileBootstrap); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Fatalf("ReadFile(BOOTSTRAP.md) = %v, want not_found", err)
	}
	a, err := s.Get("default")
	if err != nil || a.BootstrapPending {
		t.Fatalf("Get = %+v, %v; want bootstrap done", a, err)
	}
}

func TestSymlinkedFileOutsideIsRefused(t *testing.T) {
	s := mustStore(t)
	dir := mustCreate(t, s, "default")
	secret := filepath.Join(t.TempDir(), "secret")
	mustWrite(t, secret, "top secret")
	if err := os.Remove(filepath.Join(dir, FileUser)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, FileUser)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ReadFile("default", FileUser); err == nil {
		t.Fatalf("ReadFile through symlink out = %q", got)
	}
	prompt, err := s.SystemPrompt("default", PromptExtras{})
	if err != nil {
		t.Fatalf("SystemPrompt: %v", err)
	}
	if strings.Contains(prompt, "top secret") || !strings.Contains(prompt, unreadableNote) {
		t.Fatalf("SystemPrompt followed a symlink out or hid it:\n%s", prompt)
	}
}
