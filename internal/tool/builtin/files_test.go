package builtin_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// fileFixture makes a workspace with a file, a subdirectory, an outside
// secret and symlinks of every kind.
func fileFixture(t *testing.T) (ws, outside string) {
	t.Helper()
	base := t.TempDir()
	ws = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "notes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "a.txt"), "one\ntwo\nthree\nfour\n")
	write(filepath.Join(ws, "notes", "n.md"), "note")
	write(filepath.Join(outside, "secret.txt"), "TOP SECRET")
	links := map[string]string{
		"link_out":      filepath.Join(outside, "secret.txt"),
		"link_dir_out":  outside,
		"link_environ":  "/proc/self/environ",
		"dangling_out":  filepath.Join(outside, "missing.txt"),
		"dangling_in":   "missing.txt",
		"link_in":       "a.txt",
		"link_relative": "../outside/secret.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestReadFile(t *testing.T) {
	ws, _ := fileFixture(t)
	rf := builtin.NewReadFile(builtin.FileOptions{})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"whole file", map[string]any{"path": "a.txt"}, "one\ntwo\nthree\nfour\n"},
		{"offset and limit", map[string]any{"path": "a.txt", "offset": 2, "limit": 2}, "two\nthree\n"},
		{"offset past end", map[string]any{"path": "a.txt", "offset": 40}, "[offset 40 is past the end: the file has 4 lines]"},
		{"absolute inside", map[string]any{"path": filepath.Join(ws, "notes", "n.md")}, "note"},
		{"dotdot that stays inside", map[string]any{"path": "notes/../a.txt", "limit": 1}, "one\n"},
		{"symlink inside", map[string]any{"path": "link_in", "limit": 1}, "one\n"},
		{"directory listing", map[string]any{"path": "notes"}, "n.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustOK(t, call(t, t.Context(), rf, ws, tc.args)); got != tc.want {
				t.Errorf("content = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFileEscapes tries every way out of the workspace with each file tool;
// all must fail closed with a clear message and leave the outside alone.
func TestFileEscapes(t *testing.T) {
	escapes := []struct {
		name string
		path string
		want string
	}{
		{"dotdot", "../outside/secret.txt", "escapes the workspace"},
		{"deep dotdot", "notes/../../outside/secret.txt", "escapes the workspace"},
		{"absolute outside", "OUTSIDE/secret.txt", "outside the workspace and the configured roots"},
		{"proc environ", "/proc/self/environ", "outside the workspace and the configured roots"},
		{"etc passwd", "/etc/passwd", "outside the workspace and the configured roots"},
		{"symlink out", "link_out", "path escapes the allowed roots"},
		{"relative symlink out", "link_relative", "path escapes the allowed roots"},
		{"symlinked dir out", "link_dir_out/secret.txt", "path escapes the allowed roots"},
		{"symlink to proc environ", "link_environ", "path escapes the allowed roots"},
		{"dangling symlink out", "dangling_out", "path escapes the allowed roots"},
	}
	tools := []struct {
		name string
		args func(p string) map[string]any
	}{
		{"read_file", func(p string) map[string]any { return map[string]any{"path": p} }},
		{"write_file", func(p string) map[string]any { return map[string]any{"path": p, "content": "pwned"} }},
		{"delete_file", func(p string) map[string]any { return map[string]any{"path": p} }},
	}
	for _, tl := range tools {
		for _, tc := range escapes {
			t.Run(tl.name+"/"+tc.name, func(t *testing.T) {
				ws, outside := fileFixture(t)
				path := strings.Replace(tc.path, "OUTSIDE", outside, 1)
				res := call(t, t.Context(), fileTool(tl.name), ws, tl.args(path))
				got := mustErr(t, res)
				want := tc.want
				if tl.name != "read_file" && isLinkItself(tc.path) {
					// write and delete refuse symbolic links before following them.
					want = "refusing to act through a symbolic link"
				}
				if !strings.Contains(got, want) {
					t.Errorf("error = %q, want it to contain %q", got, want)
				}
				if strings.Contains(got, "TOP SECRET") {
					t.Error("secret content leaked")
				}
				b, err := os.ReadFile(filepath.Join(outside, "secret.txt"))
				if err != nil || string(b) != "TOP SECRET" {
					t.Errorf("outside file changed: %q, %v", b, err)
				}
				if _, err := os.Stat(filepath.Join(outside, "missing.txt")); err == nil {
					t.Error("a file was created outside through a dangling symlink")
				}
			})
		}
	}
}

func fileTool(name string) beamclaw.Tool {
	switch name {
	case "write_file":
		return builtin.NewWriteFile(builtin.FileOptions{})
	case "delete_file":
		return builtin.NewDeleteFile(builtin.FileOptions{})
	}
	return builtin.NewReadFile(builtin.FileOptions{})
}

func TestDanglingSymlinkInside(t *testing.T) {
	ws, _ := fileFixture(t)
	if got := mustErr(t, call(t, t.Context(), builtin.NewReadFile(builtin.FileOptions{}), ws, map[string]any{"path": "dangling_in"})); !strings.Contains(got, "no such file") {
		t.Errorf("read error = %q", got)
	}
	if got := mustErr(t, call(t, t.Context(), builtin.NewWriteFile(builtin.FileOptions{}), ws, map[string]any{"path": "dangling_in", "content": "x"})); !strings.Contains(got, "symbolic link") {
		t.Errorf("write error = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(ws, "missing.txt")); err == nil {
		t.Error("write followed the dangling symlink")
	}
}

func TestWriteAndDeleteFile(t *testing.T) {
	ws, _ := fileFixture(t)
	wf := builtin.NewWriteFile(builtin.FileOptions{})
	if got := mustOK(t, call(t, t.Context(), wf, ws, map[string]any{"path": "deep/er/new.txt", "content": "hello"})); got != "wrote 5 bytes to deep/er/new.txt" {
		t.Errorf("write = %q", got)
	}
	if got := mustOK(t, call(t, t.Context(), wf, ws, map[string]any{"path": "deep/er/new.txt", "content": " world", "append": true})); got != "appended 6 bytes to deep/er/new.txt" {
		t.Errorf("append = %q", got)
	}
	b, err := os.ReadFile(filepath.Join(ws, "deep", "er", "new.txt"))
	if err != nil || string(b) != "hello world" {
		t.Fatalf("file = %q, %v", b, err)
	}
	df := builtin.NewDeleteFile(builtin.FileOptions{})
	if got := mustErr(t, call(t, t.Context(), df, ws, map[string]any{"path": "deep"})); !strings.Contains(got, "is a directory") {
		t.Errorf("delete dir = %q", got)
	}
	mustOK(t, call(t, t.Context(), df, ws, map[string]any{"path": "deep/er/new.txt"}))
	if _, err := os.Stat(filepath.Join(ws, "deep", "er", "new.txt")); err == nil {
		t.Error("file still there")
	}
	if got := mustErr(t, call(t, t.Context(), df, ws, map[string]any{"path": "nope.txt"})); !strings.Contains(got, "no such file") {
		t.Errorf("delete missing = %q", got)
	}
	// Invalid arguments never reach the disk.
	mustErr(t, call(t, t.Context(), wf, ws, map[string]any{"path": "invalid.txt"}))
	if _, err := os.Stat(filepath.Join(ws, "invalid.txt")); err == nil {
		t.Error("write_file ran without content")
	}
}

func TestConfiguredRoots(t *testing.T) {
	ws, outside := fileFixture(t)
	rf := builtin.NewReadFile(builtin.FileOptions{Roots: []string{outside}})
	if got := mustOK(t, call(t, t.Context(), rf, ws, map[string]any{"path": filepath.Join(outside, "secret.txt")})); got != "TOP SECRET" {
		t.Errorf("read in root = %q", got)
	}
	// Without a workspace, relative paths resolve against the first root.
	if got := mustOK(t, call(t, t.Context(), rf, "", map[string]any{"path": "secret.txt"})); got != "TOP SECRET" {
		t.Errorf("read relative to root = %q", got)
	}
	none := builtin.NewReadFile(builtin.FileOptions{})
	if got := mustErr(t, call(t, t.Context(), none, "", map[string]any{"path": "a.txt"})); !strings.Contains(got, "no workspace or file roots") {
		t.Errorf("no roots = %q", got)
	}
}

func TestReadFileLimits(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "bin"), []byte{1, 0, 2}, 0o644); err != nil {
		t.Fatal(err)
	}
	rf := builtin.NewReadFile(builtin.FileOptions{MaxReadBytes: 10})
	if got := mustOK(t, call(t, t.Context(), rf, ws, map[string]any{"path": "big.txt"})); got != "xxxxxxxxxx\n[file truncated: read 10 of 100 bytes]" {
		t.Errorf("big = %q", got)
	}
	if got := mustErr(t, call(t, t.Context(), rf, ws, map[string]any{"path": "bin"})); !strings.Contains(got, "binary file") {
		t.Errorf("binary = %q", got)
	}
}

// isLinkItself reports whether the path's last component is one of the
// fixture's symlinks (write and delete refuse those before following).
func isLinkItself(p string) bool {
	switch p {
	case "link_out", "link_relative", "link_environ", "dangling_out":
		return true
	}
	return false
}

// TestHardLinkOut (issue 23, item 9): a hard link in the workspace to a
// file outside is refused by write_file (overwrite and append) and
// read_file, as a symbolic link out is, and the outside file is left
// alone; delete_file removes the name, which changes nothing outside.
func TestHardLinkOut(t *testing.T) {
	ws, outside := fileFixture(t)
	secret := filepath.Join(outside, "secret.txt")
	if err := os.Link(secret, filepath.Join(ws, "hard")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "hard", "content": "pwned"}},
		{"write_file", map[string]any{"path": "hard", "content": "pwned", "append": true}},
		{"read_file", map[string]any{"path": "hard"}},
	}
	for _, tc := range cases {
		got := mustErr(t, call(t, t.Context(), fileTool(tc.tool), ws, tc.args))
		if !strings.Contains(got, "refusing a file with 2 hard links") {
			t.Errorf("%s %v: error = %q", tc.tool, tc.args, got)
		}
		if strings.Contains(got, "TOP SECRET") {
			t.Errorf("%s: secret content leaked", tc.tool)
		}
		if b, err := os.ReadFile(secret); err != nil || string(b) != "TOP SECRET" {
			t.Fatalf("%s changed the outside file: %q, %v", tc.tool, b, err)
		}
	}
	mustOK(t, call(t, t.Context(), fileTool("delete_file"), ws, map[string]any{"path": "hard"}))
	if b, err := os.ReadFile(secret); err != nil || string(b) != "TOP SECRET" {
		t.Fatalf("delete_file changed the outside file: %q, %v", b, err)
	}
	// With its other name gone, the file is an ordinary one again.
	if err := os.Link(secret, filepath.Join(ws, "again")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(secret); err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, t.Context(), fileTool("write_file"), ws, map[string]any{"path": "again", "content": "mine"}))
}
