package sandbox

import (
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
