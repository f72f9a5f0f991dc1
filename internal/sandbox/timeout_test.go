package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTimeoutKillsDetachedChild(t *testing.T) {
	m := startManager(t, testOptions(t))
	c := caller("s-timeout")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := m.Run(ctx, c, Script{Language: LangSh, Timeout: 2 * time.Second,
		Code: "sleep 1000 &\nnohup sleep 1001 >/dev/null 2>&1 &\necho started\nsleep 1002\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Signal != 9 || res.Stdout != "started\n" {
		t.Fatalf("want a timeout with the output so far:\n%s", dump(res))
	}
	if left := mustRun(t, m, c, LangPython, countProcs); strings.TrimSpace(left.Stdout) != "0" {
		t.Fatalf("processes left after the timeout: %s", dump(left))
	}
}

func TestFinishedScriptLeavesNoChildren(t *testing.T) {
	m := startManager(t, testOptions(t))
	c := caller("s-bg")
	res := mustRun(t, m, c, LangPython, "import subprocess\nsubprocess.Popen(['sleep', '1000'])\nprint('done')\n")
	if res.ExitCode != 0 || res.Stdout != "done\n" {
		t.Fatalf("%s", dump(res))
	}
	if left := mustRun(t, m, c, LangPython, countProcs); strings.TrimSpace(left.Stdout) != "0" {
		t.Fatalf("a background child outlived its script: %s", dump(left))
	}
}

func TestCancelKillsRun(t *testing.T) {
	m := startManager(t, testOptions(t))
	c := caller("s-cancel")
	mustRun(t, m, c, LangSh, "true") // start the container first
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var res Result
	go func() {
		var err error
		res, err = m.Run(ctx, c, Script{Language: LangSh, Code: "touch /tmp/running\nsleep 1000 & sleep 1000\n"})
		done <- err
	}()
	waitFor(t, func() bool {
		return mustRun(t, m, c, LangSh, "test -e /tmp/running && echo yes").Stdout == "yes\n"
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled run: err %v", err)
	}
	if !res.Killed {
		t.Errorf("canceled run not marked killed: %s", dump(res))
	}
	if left := mustRun(t, m, c, LangPython, countProcs); strings.TrimSpace(left.Stdout) != "0" {
		t.Fatalf("processes left after cancel: %s", dump(left))
	}
}

func TestOutputCapped(t *testing.T) {
	opts := testOptions(t)
	opts.MaxOutputBytes = 64 << 10
	m := startManager(t, opts)
	res := mustRun(t, m, caller("s-cap"), LangPython, "import sys\nsys.stdout.write('x' * (3 << 20))\n")
	if !res.Truncated || !strings.Contains(res.Stdout, "[output truncated: ") {
		t.Fatalf("no truncation marker: %d bytes, truncated %v", len(res.Stdout), res.Truncated)
	}
	if n := strings.Count(res.Stdout, "x"); n != 64<<10 {
		t.Errorf("kept %d bytes, want %d", n, 64<<10)
	}
	if !strings.HasSuffix(res.Stdout, fmt.Sprintf("[output truncated: %d bytes omitted]", 3<<20-64<<10)) {
		t.Errorf("marker: %q", res.Stdout[len(res.Stdout)-60:])
	}
}

func TestConcurrentRunsShareOneContainer(t *testing.T) {
	m := startManager(t, testOptions(t))
	c := caller("s-conc")
	var wg sync.WaitGroup
	outs := make([]Result, 8)
	errs := make([]error, 8)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = m.Run(context.Background(), c, Script{Language: LangPython,
				Code: fmt.Sprintf("import time\ntime.sleep(0.2)\nprint(%d)\n", i)})
		}()
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || strings.TrimSpace(outs[i].Stdout) != fmt.Sprint(i) {
			t.Errorf("run %d: %v %s", i, errs[i], dump(outs[i]))
		}
	}
	if n := countContainers(t, m.opts.InstallID); n != 1 {
		t.Errorf("%d containers, want 1", n)
	}
}

func TestScopes(t *testing.T) {
	for _, tc := range []struct {
		scope string
		want  int
	}{{ScopeSession, 3}, {ScopeAgent, 2}, {ScopeShared, 1}} {
		t.Run(tc.scope, func(t *testing.T) {
			opts := testOptions(t)
			opts.Scope = tc.scope
			m := startManager(t, opts)
			for _, c := range []Caller{
				{SessionID: "a1", AgentID: "a"}, {SessionID: "a2", AgentID: "a"}, {SessionID: "b1", AgentID: "b"},
			} {
				mustRun(t, m, c, LangSh, "true")
			}
			if n := countContainers(t, m.opts.InstallID); n != tc.want {
				t.Errorf("%d containers, want %d", n, tc.want)
			}
		})
	}
}

// waitFor polls cond (each poll is a real round trip, not a sleep).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if cond() {
			return
		}
	}
	t.Fatal("condition not reached")
}
