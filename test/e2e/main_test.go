// Package e2e drives the real beamclaw binary on loopback: it is built
// once in TestMain, and every test runs it in its own BEAMCLAW_HOME.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// binary is the beamclaw built for this run.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "beamclaw-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "beamclaw")
	build := exec.Command("go", "build", "-o", binary, "../../cmd/beamclaw")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build beamclaw:", err)
		os.Exit(1)
	}
	code := 0
	if err := goleak.Find(); err == nil {
		code = m.Run()
		if err := goleak.Find(); err != nil && code == 0 {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// home is one BEAMCLAW_HOME with helpers to run the binary in it.
type home struct {
	t   *testing.T
	dir string
	env []string
}

func newHome(t *testing.T, configYAML string) *home {
	t.Helper()
	dir := t.TempDir()
	if configYAML == "" {
		configYAML = "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(configYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &home{t: t, dir: dir, env: append(filteredEnv(), "BEAMCLAW_HOME="+dir)}
	t.Cleanup(h.cleanup)
	return h
}

// filteredEnv drops the caller's BEAMCLAW_* settings.
func filteredEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BEAMCLAW_") {
			out = append(out, kv)
		}
	}
	return out
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs beamclaw with args and waits for it (a minute at most).
func (h *home) run(args ...string) result {
	h.t.Helper()
	return h.runWithin(60*time.Second, args...)
}

// runWithin runs beamclaw with args and waits for it, d at most.
func (h *home) runWithin(d time.Duration, args ...string) result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = h.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("run %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// must runs beamclaw and fails the test on a non-zero exit.
func (h *home) must(args ...string) result {
	h.t.Helper()
	r := h.run(args...)
	if r.code != 0 {
		h.t.Fatalf("beamclaw %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

type status struct {
	PID      int    `json:"pid"`
	HTTPAddr string `json:"http_addr"`
}

func (h *home) status() (status, bool) {
	h.t.Helper()
	r := h.run("status", "--json")
	if r.code != 0 {
		return status{}, false
	}
	var s status
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		h.t.Fatalf("status --json: %v: %s", err, r.stdout)
	}
	return s, true
}

// start starts a detached daemon and returns its status.
func (h *home) start() status {
	h.t.Helper()
	if r := h.run("start"); r.code != 0 { // the daemon's own account, not only its last line
		lines := strings.Split(strings.TrimSpace(h.logs()), "\n")
		h.t.Fatalf("beamclaw start: exit %d\nstderr: %s\nthe log's end:\n%s", r.code, r.stderr, strings.Join(lines[max(0, len(lines)-60):], "\n"))
	}
	s, ok := h.status()
	if !ok {
		h.t.Fatal("daemon started but status fails")
	}
	return s
}

// cleanup stops a daemon left running by a failed test, then checks its
// log (checkLogKeys).
func (h *home) cleanup() {
	if s, ok := h.status(); ok {
		h.run("stop")
		_ = syscall.Kill(s.PID, syscall.SIGKILL)
	}
	h.checkLogKeys()
}

func (h *home) logs() string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "logs", "beamclaw.log"))
	return string(b)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// testCacheDir is where scripts/test-deps.sh installs a third-party tool:
// $env when set, else name under the user's cache dir's beamclaw-test.
func testCacheDir(env, name string) string {
	if dir := os.Getenv(env); dir != "" {
		return dir
	}
	cache, _ := os.UserCacheDir()
	return filepath.Join(cache, "beamclaw-test", name)
}

// ended reports whether pid has exited: gone, or a zombie that init has
// not reaped yet (the detached daemon's parent is init).
func ended(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
