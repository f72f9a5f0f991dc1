package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// tuiTmuxSeq numbers the tmux sockets of this process.
var tuiTmuxSeq atomic.Int64

// term is a program running in a detached tmux session on its own tmux
// server (socket), read with capture-pane and driven with send-keys.
type term struct {
	t        *testing.T
	socket   string
	env      []string
	exitFile string // where the command's shell writes the exit status
}

const termSession = "bc"

// startTerm runs command (a shell command line) in a 120x40 tmux pane
// with env, records its exit status for waitExit, and kills the tmux
// server when the test ends. Without tmux the test fails under CI and
// skips loudly elsewhere.
func startTerm(t *testing.T, env []string, command string) *term {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testenv.Unavailable(t, fmt.Sprintf("TMUX UNAVAILABLE (%v): the terminal UI is tested in tmux; install tmux", err), "")
	}
	tm := &term{
		t:        t,
		socket:   fmt.Sprintf("beamclaw-e2e-%d-%d", os.Getpid(), tuiTmuxSeq.Add(1)),
		env:      append(append([]string(nil), env...), "LANG=C.UTF-8", "TERM=xterm-256color"),
		exitFile: filepath.Join(t.TempDir(), "exit-status"),
	}
	command += "; echo $? > " + tuiShellQuote(tm.exitFile)
	t.Cleanup(func() { _, _ = tm.tmux("kill-server") })
	// remain-on-exit keeps the pane (and its last screen) after the
	// program exits.
	if out, err := tm.tmux("new-session", "-d", "-s", termSession, "-x", "120", "-y", "40", command,
		";", "set-option", "-g", "remain-on-exit", "on"); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	return tm
}

// tmux runs one tmux command against this term's server.
func (tm *term) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-u", "-f", "/dev/null", "-L", tm.socket}, args...)...)
	cmd.Env = tm.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// screen returns the pane's visible text.
func (tm *term) screen() string {
	tm.t.Helper()
	out, err := tm.tmux("capture-pane", "-p", "-t", termSession)
	if err != nil {
		tm.t.Fatalf("tmux capture-pane: %v\n%s", err, out)
	}
	return out
}

// waitFor polls the screen until cond holds, failing with the last
// screen after timeout.
func (tm *term) waitFor(what string, timeout time.Duration, cond func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		s := tm.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out after %s waiting for %s; screen:\n%s", timeout, what, s)
		}
		<-tick.C
	}
}

// waitText waits until the screen shows text.
func (tm *term) waitText(text string, timeout time.Duration) string {
	tm.t.Helper()
	return tm.waitFor(fmt.Sprintf("%q on screen", text), timeout, func(s string) bool {
		return strings.Contains(s, text)
	})
}

// typeLine types text literally and presses Enter.
func (tm *term) typeLine(text string) {
	tm.t.Helper()
	tm.keysLiteral(text)
	tm.keys("Enter")
}

// keysLiteral types text as it is.
func (tm *term) keysLiteral(text string) {
	tm.t.Helper()
	if out, err := tm.tmux("send-keys", "-t", termSession, "-l", text); err != nil {
		tm.t.Fatalf("tmux send-keys -l %q: %v\n%s", text, err, out)
	}
}

// keys sends named keys (Enter, C-c, ...).
func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	if out, err := tm.tmux(append([]string{"send-keys", "-t", termSession}, keys...)...); err != nil {
		tm.t.Fatalf("tmux send-keys %v: %v\n%s", keys, err, out)
	}
}

// waitExit waits for the program to exit and returns its exit status
// ("0" for a clean exit, "signal N" when a signal killed it).
func (tm *term) waitExit(timeout time.Duration) string {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		// The shell around the program writes its status to exitFile
		// (tmux's own pane_dead_status is sometimes never filled in).
		if b, err := os.ReadFile(tm.exitFile); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the program did not exit within %s; screen:\n%s", timeout, tm.screen())
		}
		<-tick.C
	}
}

// tuiShellQuote quotes s for sh.
func tuiShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tuiCommand is the shell command line that runs `beamclaw tui` in h.
func (h *home) tuiCommand() string {
	return "BEAMCLAW_HOME=" + tuiShellQuote(h.dir) + " " + tuiShellQuote(binary) + " tui"
}
