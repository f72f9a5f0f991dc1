package load

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// daemonProc is one `beamclaw start --foreground` of a soak, its output
// in a file of its own.
type daemonProc struct {
	cmd     *exec.Cmd
	exited  chan error
	started time.Time
	out     *os.File
}

// startDaemon execs bin in home, its log going to logPath.
func startDaemon(bin, home, logPath string) (*daemonProc, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("daemon log: %w", err)
	}
	cmd := exec.Command(bin, "start", "--foreground")
	cmd.Env = append(os.Environ(), "BEAMCLAW_HOME="+home)
	cmd.Stdout, cmd.Stderr = f, f
	p := &daemonProc{cmd: cmd, exited: make(chan error, 1), out: f}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("exec %s: %w", bin, err)
	}
	go func() { p.exited <- cmd.Wait() }()
	return p, nil
}

// waitReady polls GET /ready at base until it answers 200 and returns the
// time from exec to that answer; limit bounds the wait.
func (p *daemonProc) waitReady(ctx context.Context, base string, limit time.Duration) (time.Duration, error) {
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}
	deadline := p.started.Add(limit)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/ready", nil)
		if err != nil {
			return 0, err
		}
		if res, err := hc.Do(req); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return time.Since(p.started), nil
			}
		}
		select {
		case err := <-p.exited:
			p.exited <- err
			return 0, fmt.Errorf("daemon exited before ready: %v (log %s)", exitErr(err), p.out.Name())
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("not ready within %s (log %s)", limit, p.out.Name())
		}
	}
}

// kill9 sends SIGKILL and waits for the process to be gone.
func (p *daemonProc) kill9() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	_ = p.out.Close()
}

// stop ends the daemon gracefully (SIGTERM, SIGKILL after 30 s).
func (p *daemonProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	_ = p.out.Close()
}
