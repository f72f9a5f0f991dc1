package load

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/beamclaw/beamclaw-go/test/freeport"
)

// coldStartConfig is the config.yaml of a cold-start home: defaults but
// the listen address.
const coldStartConfig = "gateway:\n  http:\n    addr: %q\n"

// pollPause is the pause between two /health polls of a starting daemon:
// short enough not to matter against a start of tens of milliseconds, long
// enough not to take a whole core from the daemon.
const pollPause = 100 * time.Microsecond

// ColdStart starts bin ("beamclaw") n times as `start --foreground`, each
// time in a fresh BEAMCLAW_HOME on a free loopback port, and returns how
// long each took from exec to the first GET /health answering ready.
// Each daemon is stopped (SIGTERM, then SIGKILL) before the next starts.
// limit bounds one start.
func ColdStart(ctx context.Context, bin string, n int, limit time.Duration) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for i := range n {
		d, err := coldStartOnce(ctx, bin, limit)
		if err != nil {
			return out, fmt.Errorf("start %d: %w", i, err)
		}
		out = append(out, d)
	}
	return out, nil
}

func coldStartOnce(ctx context.Context, bin string, limit time.Duration) (time.Duration, error) {
	home, err := os.MkdirTemp("", "bcload-home-")
	if err != nil {
		return 0, fmt.Errorf("make home: %w", err)
	}
	defer os.RemoveAll(home)
	addr, err := freeport.Addr()
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), fmt.Appendf(nil, coldStartConfig, addr), 0o600); err != nil {
		return 0, fmt.Errorf("write config: %w", err)
	}
	cmd := exec.Command(bin, "start", "--foreground")
	cmd.Env = append(os.Environ(), "BEAMCLAW_HOME="+home)
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("exec %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer stop(cmd, exited)
	deadline := time.Now().Add(limit)
	for {
		if h, err := Health(ctx, hc, "http://"+addr); err == nil && h.Ready {
			return time.Since(start), nil
		}
		select {
		case err := <-exited:
			exited <- err // stop waits for it again
			return 0, fmt.Errorf("daemon exited before ready: %w", exitErr(err))
		case <-ctx.Done():
			return 0, ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("not ready within %s", limit)
		}
		time.Sleep(pollPause)
	}
}

// stop ends a started daemon: SIGTERM, then SIGKILL after 10 s.
func stop(cmd *exec.Cmd, exited chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// exitErr names a clean exit, which is an error for a daemon.
func exitErr(err error) error {
	if err == nil {
		return errors.New("exit status 0")
	}
	return err
}
