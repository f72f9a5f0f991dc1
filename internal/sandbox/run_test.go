package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunPythonAndSh(t *testing.T) {
	m := startManager(t, testOptions(t))
	c := caller("s-basic")
	res := mustRun(t, m, c, LangPython, "import sys\nprint('hello', 6*7)\nprint('oops', file=sys.stderr)\nsys.exit(3)\n")
	if res.ExitCode != 3 || strings.TrimSpace(res.Stdout) != "hello 42" || strings.TrimSpace(res.Stderr) != "oops" {
		t.Fatalf("python run:\n%s", dump(res))
	}
	res = mustRun(t, m, c, LangSh, "echo from sh; echo err >&2; exit 0\n")
	if res.ExitCode != 0 || res.Stdout != "from sh\n" || res.Stderr != "err\n" {
		t.Fatalf("sh run:\n%s", dump(res))
	}
	res = mustRun(t, m, c, LangPython, "raise ValueError('bad')")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "ValueError: bad") {
		t.Fatalf("exception:\n%s", dump(res))
	}
	if n := countContainers(t, m.opts.InstallID); n != 1 {
		t.Fatalf("%d containers for one session, want 1", n)
	}
}

func TestWorkspaceMount(t *testing.T) {
	for _, mode := range []string{"ro", "rw", "none"} {
		t.Run(mode, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "notes.md"), []byte("hello from the host\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(ws, 0o777); err != nil { // the sandbox user is uid 10001
				t.Fatal(err)
			}
			opts := testOptions(t)
			opts.WorkspaceMount = mode
			m := startManager(t, opts)
			c := caller("s-ws")
			c.Workspace = ws
			res := mustRun(t, m, c, LangSh, "pwd; cat notes.md 2>/dev/null || echo unreadable; touch new.txt 2>/dev/null && echo wrote || echo refused")
			want := map[string]string{
				"ro":   "/workspace\nhello from the host\nrefused\n",
				"rw":   "/workspace\nhello from the host\nwrote\n",
				"none": "/tmp\nunreadable\nwrote\n",
			}[mode]
			if res.Stdout != want {
				t.Fatalf("stdout %q, want %q", res.Stdout, want)
			}
		})
	}
}
