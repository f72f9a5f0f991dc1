package builtin_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/tool"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

func TestBashRunsInWorkspace(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	bash := builtin.NewBash(builtin.ProcessOptions{})
	tests := []struct {
		name   string
		script string
		want   string
	}{
		{"cwd is the workspace", "cat hello.txt; echo; pwd", "hi\n" + ws + "\n[exit code: 0]"},
		{"stderr is captured", "echo out; echo err >&2", "out\nerr\n[exit code: 0]"},
		{"exit code reported", "echo bad; exit 3", "bad\n[exit code: 3]"},
		{"killed by signal", "kill -TERM $$", "[killed by signal: terminated]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustOK(t, call(t, t.Context(), bash, ws, map[string]any{"script": tc.script}))
			if got != tc.want {
				t.Errorf("output = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBashEnvironmentFiltered(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret")
	t.Setenv("TELEGRAM_BOT_TOKEN", "123:secret")
	t.Setenv("BEAMCLAW_VISIBLE", "yes")
	bash := builtin.NewBash(builtin.ProcessOptions{EnvAllow: []string{"BEAMCLAW_VISIBLE", "OPENAI_API_KEY"}})
	got := mustOK(t, call(t, t.Context(), bash, t.TempDir(), map[string]any{"script": "env"}))
	if strings.Contains(got, "sk-test-secret") || strings.Contains(got, "OPENAI_API_KEY") || strings.Contains(got, "123:secret") {
		t.Errorf("child saw a secret:\n%s", got)
	}
	if !strings.Contains(got, "BEAMCLAW_VISIBLE=yes") || !strings.Contains(got, "PATH=") {
		t.Errorf("child lacks allowed variables:\n%s", got)
	}
}

// waitGone polls until pid no longer exists (or the deadline passes).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		runtimeYield()
	}
	t.Errorf("process %d still alive: orphaned", pid)
}

func runtimeYield() { <-time.After(10 * time.Millisecond) }

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	ws := t.TempDir()
	bash := builtin.NewBash(builtin.ProcessOptions{})
	res := call(t, t.Context(), bash, ws, map[string]any{
		"script":          "echo started; sleep 300 & echo $! > bg.pid; sleep 300",
		"timeout_seconds": 1,
	})
	got := mustErr(t, res)
	if !strings.Contains(got, "started") || !strings.Contains(got, "timed out after 1s; its process group was killed") {
		t.Errorf("timeout result = %q", got)
	}
	waitGone(t, readPID(t, filepath.Join(ws, "bg.pid")))
}

func TestBashBackgroundKilledOnExit(t *testing.T) {
	ws := t.TempDir()
	bash := builtin.NewBash(builtin.ProcessOptions{})
	got := mustOK(t, call(t, t.Context(), bash, ws, map[string]any{"script": "sleep 300 & echo $! > bg.pid; echo done"}))
	if got != "done\n[exit code: 0]" {
		t.Errorf("output = %q", got)
	}
	waitGone(t, readPID(t, filepath.Join(ws, "bg.pid")))
}

func TestBashCanceled(t *testing.T) {
	ws := t.TempDir()
	bash := builtin.NewBash(builtin.ProcessOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		// Cancel once the script has visibly started.
		for {
			if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
				cancel()
				return
			}
			runtimeYield()
		}
	}()
	res := call(t, ctx, bash, ws, map[string]any{"script": "touch started; sleep 300"})
	if got := mustErr(t, res); !strings.Contains(got, "canceled") {
		t.Errorf("result = %q", got)
	}
}

// A run's output past tools.max_output_bytes ends with the marker and
// the exit line, which the registry's cap, the same number, keeps.
func TestBashOutputCaps(t *testing.T) {
	r := tool.New(tool.Options{MaxOutputBytes: 1000})
	bash := builtin.NewBash(builtin.ProcessOptions{MaxOutputBytes: 1000})
	got := mustOK(t, callWith(t, t.Context(), r, bash, t.TempDir(), map[string]any{"script": "head -c 5000 /dev/zero | tr '\\0' a"}))
	want := strings.Repeat("a", 744) + "\n[output truncated: 4256 bytes omitted]\n[exit code: 0]"
	if got != want {
		t.Errorf("output = %q", got)
	}
	// The registry's cap applies on top, with its own marker.
	r = tool.New(tool.Options{MaxOutputBytes: 10})
	got = mustOK(t, callWith(t, t.Context(), r, builtin.NewBash(builtin.ProcessOptions{}), t.TempDir(), map[string]any{"script": "seq 1 1000"}))
	if !strings.HasPrefix(got, "1\n2\n3\n4\n5\n\n[output truncated: ") {
		t.Errorf("registry-capped output = %q", got)
	}
}

func TestBashInvalidArgsDoNotRun(t *testing.T) {
	ws := t.TempDir()
	bash := builtin.NewBash(builtin.ProcessOptions{})
	tests := []struct {
		name string
		args string
		want string
	}{
		{"missing script", `{}`, `argument "script": required`},
		{"timeout too large", `{"script":"touch ran","timeout_seconds":601}`, `argument "timeout_seconds": must be ≤ 600`},
		{"unknown argument", `{"script":"touch ran","sudo":true}`, `argument "sudo": unknown argument`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustErr(t, call(t, t.Context(), bash, ws, tc.args)); !strings.Contains(got, tc.want) {
				t.Errorf("error = %q, want it to contain %q", got, tc.want)
			}
			if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
				t.Fatal("the script ran despite invalid arguments")
			}
		})
	}
}

func TestBashNoWorkspace(t *testing.T) {
	bash := builtin.NewBash(builtin.ProcessOptions{})
	got := mustErr(t, call(t, t.Context(), bash, "", map[string]any{"script": "true"}))
	if !strings.Contains(got, "no workspace") {
		t.Errorf("error = %q", got)
	}
}

func TestTerminal(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(ws, "rootlink")); err != nil {
		t.Fatal(err)
	}
	term := builtin.NewTerminal(builtin.ProcessOptions{})
	ok := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no shell expansion", map[string]any{"command": []string{"echo", "$HOME", "*", "a;b"}}, "$HOME * a;b\n[exit code: 0]"},
		{"cwd inside", map[string]any{"command": []string{"pwd"}, "cwd": "sub"}, filepath.Join(ws, "sub") + "\n[exit code: 0]"},
		{"exit code", map[string]any{"command": []string{"false"}}, "[exit code: 1]"},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			got := mustOK(t, call(t, t.Context(), term, ws, tc.args))
			if got != tc.want {
				t.Errorf("output = %q, want %q", got, tc.want)
			}
		})
	}
	bad := []struct {
		name string
		args map[string]any
		want string
	}{
		{"cwd dotdot", map[string]any{"command": []string{"pwd"}, "cwd": "../"}, "must be a relative path inside the workspace"},
		{"cwd absolute", map[string]any{"command": []string{"pwd"}, "cwd": "/etc"}, "must be a relative path inside the workspace"},
		{"cwd symlink out", map[string]any{"command": []string{"pwd"}, "cwd": "rootlink"}, "escapes the workspace"},
		{"empty argv", map[string]any{"command": []string{}}, "must have at least 1 items"},
		{"missing program", map[string]any{"command": []string{"no-such-program-beamclaw"}}, "executable file not found"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustErr(t, call(t, t.Context(), term, ws, tc.args)); !strings.Contains(got, tc.want) {
				t.Errorf("error = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}
