package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestCLIChatVersionLogsCompletion: the CLI a terminal user reaches for:
// --version, one-shot chat (-m, arguments, piped stdin) streaming to
// stdout, logs (filtered, followed across a rotation at a tiny size),
// completion of names, and examples in --help.
func TestCLIChatVersionLogsCompletion(t *testing.T) {
	r := newChatRig(t, rigOptions{extra: "obs:\n  log:\n    max_size_mb: 0.004\n    max_files: 2\n"})
	r.llm.SetDefault(fakellm.Rules)

	if v := r.h.must("--version").stdout; !strings.HasPrefix(v, "beamclaw ") || !strings.Contains(v, "commit") {
		t.Errorf("--version: %q", v)
	}
	if help := r.h.must("--help").stdout; !strings.Contains(help, "Examples:") || !strings.Contains(help, "beamclaw chat -m") {
		t.Errorf("--help has no examples:\n%s", help)
	}
	r.start()

	if out := r.h.must("chat", "-m", "hello from the shell").stdout; out != "echo: hello from the shell\n" {
		t.Errorf("chat -m printed %q", out)
	}
	if out := r.h.must("chat", "two", "words").stdout; out != "echo: two words\n" {
		t.Errorf("chat ARGS printed %q", out)
	}
	cmd := exec.Command(binary, "chat", "-m", "summarise:")
	cmd.Env = r.h.env
	cmd.Stdin = strings.NewReader("line one\nline two\n")
	out, err := cmd.Output()
	if err != nil || string(out) != "echo: summarise:\n\nline one\nline two\n" {
		t.Errorf("piped chat: %v %q", err, out)
	}
	if res := r.h.run("chat"); res.code == 0 || !strings.Contains(res.stderr, "nothing to send") {
		t.Errorf("chat with nothing: exit %d %q", res.code, res.stderr)
	}

	// Completion of agent and session names.
	r.h.must("agent", "create", "scout")
	if out := r.h.must("__complete", "tui", "--agent", "sc").stdout; !strings.Contains(out, "scout") {
		t.Errorf("agent completion: %q", out)
	}
	if out := r.h.must("__complete", "sessions", "show", "").stdout; strings.Count(out, "\n") < 2 {
		t.Errorf("session completion: %q", out)
	}

	// logs: filtered by level; -f follows new lines across rotations.
	if out := r.h.must("logs", "--level", "warn").stdout; strings.Contains(out, "level=INFO") {
		t.Errorf("logs --level warn shows info lines:\n%s", out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	follow := exec.CommandContext(ctx, binary, "logs", "-f", "-n", "1")
	follow.Env = r.h.env
	pipe, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select { // the last line first: logs -f is following now
	case <-lines:
	case <-time.After(10 * time.Second):
		t.Fatal("logs -f -n 1 printed nothing")
	}
	for i := range 40 { // each request logs a line; 4 KiB rotates within them
		get(t, "http://"+r.addr+"/health?n="+strings.Repeat("x", i))
	}
	r.h.must("chat", "-m", "marker after rotation")
	deadline := time.After(20 * time.Second)
	health := 0
	for found := false; !found; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("logs -f ended")
			}
			if strings.Contains(l, "route=/health") {
				health++
			}
			found = strings.Contains(l, "route=/ws") // the chat's connection, after every rotation
		case <-deadline:
			t.Fatalf("logs -f did not show the lines written after the rotations (%d health lines seen)", health)
		}
	}
	if health != 40 {
		t.Errorf("logs -f showed %d of the 40 health requests across the rotations", health)
	}
	cancel()
	_ = follow.Wait()
	logDir := filepath.Join(r.h.dir, "logs")
	if _, err := os.Stat(filepath.Join(logDir, "beamclaw.log.1")); err != nil {
		t.Errorf("the log was not rotated: %v", err)
	}
	if _, err := os.Stat(filepath.Join(logDir, "beamclaw.log.3")); !os.IsNotExist(err) {
		t.Errorf("more rotated files than max_files: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(logDir, "beamclaw.log")); err != nil || fi.Size() > 8<<10 {
		t.Errorf("current log: %v (%d bytes)", err, fi.Size())
	}
}
