package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestWithin(t *testing.T) {
	base := filepath.FromSlash("/home/u/.beamclaw/agents/default")
	tests := []struct {
		name string
		p    string
		want string
		kind beamclaw.Kind // KindInternal means no error
	}{
		{"relative", "notes/a.md", "notes/a.md", beamclaw.KindInternal},
		{"dot", ".", ".", beamclaw.KindInternal},
		{"inner dotdot", "notes/../a.md", "a.md", beamclaw.KindInternal},
		{"absolute inside", base + "/MEMORY.md", "MEMORY.md", beamclaw.KindInternal},
		{"absolute base", base, ".", beamclaw.KindInternal},
		{"escape", "../x", "", beamclaw.KindForbidden},
		{"deep escape", "a/../../x", "", beamclaw.KindForbidden},
		{"absolute outside", "/etc/passwd", "", beamclaw.KindForbidden},
		{"sibling prefix", base + "-evil/x", "", beamclaw.KindForbidden},
		{"empty", "", "", beamclaw.KindInvalid},
		{"nul", "a\x00b", "", beamclaw.KindInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Within(base, tt.p)
			if tt.kind == beamclaw.KindInternal {
				if err != nil || got != filepath.FromSlash(tt.want) {
					t.Fatalf("Within(%q) = %q, %v; want %q", tt.p, got, err, tt.want)
				}
				return
			}
			if err == nil || beamclaw.KindOf(err) != tt.kind {
				t.Fatalf("Within(%q) = %q, %v; want kind %v", tt.p, got, err, tt.kind)
			}
		})
	}
}

func TestResolveFailsClosedOnSymlinks(t *testing.T) {
	base := t.TempDir()
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "secret"), "s3cret")
	mustWrite(t, filepath.Join(base, "ok.txt"), "fine")
	links := map[string]string{
		"out":      filepath.Join(outside, "secret"),
		"outdir":   outside,
		"dangling": filepath.Join(outside, "missing"),
		"inside":   "ok.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		p      string
		create bool
		ok     bool
	}{
		{"plain file", "ok.txt", false, true},
		{"symlink inside", "inside", false, true},
		{"symlink out", "out", false, false},
		{"through dir symlink out", "outdir/secret", false, false},
		{"create through dangling symlink", "dangling", true, false},
		{"proc escape", "/proc/self/environ", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, rel, err := Resolve(base, tt.p)
			if err == nil {
				defer root.Close()
				flag := os.O_RDONLY
				if tt.create {
					flag = os.O_WRONLY | os.O_CREATE
				}
				var f *os.File
				f, err = root.OpenFile(rel, flag, 0o600)
				if err == nil {
					f.Close()
				}
			}
			if (err == nil) != tt.ok {
				t.Fatalf("open %q: err = %v, want ok=%v", tt.p, err, tt.ok)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "missing")); !os.IsNotExist(err) {
		t.Fatalf("dangling symlink target was created outside: %v", err)
	}
	if _, err := OpenRoot(filepath.Join(base, "nope")); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Fatalf("OpenRoot(missing) = %v", err)
	}
}
