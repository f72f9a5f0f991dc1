package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// startTimeout bounds how long `start` waits for the detached daemon.
const startTimeout = 30 * time.Second

func (a *app) newStartCmd() *cobra.Command {
	var foreground, detached bool
	cmd := &cobra.Command{
		Use:     "start",
		Short:   "Start the daemon (detached; --foreground to stay attached)",
		Example: "  beamclaw start\n  beamclaw start --foreground   # logs on stderr; Ctrl-C stops it",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if foreground {
				var logOut io.Writer = a.stderr
				if detached {
					logOut = nil // the daemon writes (and rotates) its own log file
				}
				return a.backend().RunForeground(cmd.Context(), logOut, func(r beamclaw.Ready) {
					fmt.Fprintf(a.stdout, "beamclaw running (pid %d) on http://%s, control socket %s\n", r.PID, r.HTTPAddr, r.Socket)
				})
			}
			return a.startDetached(cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&foreground, "foreground", false, "run in this process, logging to stderr")
	cmd.Flags().BoolVar(&detached, "detached", false, "the child of a detached start: log to the home's log file")
	_ = cmd.Flags().MarkHidden("detached")
	return cmd
}

// startDetached re-runs this binary as `start --foreground` in its own
// session, logging to the log file, and waits until it answers.
func (a *app) startDetached(ctx context.Context) error {
	loc, err := a.backend().Locate()
	if err != nil {
		return err
	}
	c := client.NewUnix(loc.Socket)
	defer c.Close()
	if st, err := c.Status(ctx); err == nil {
		return fmt.Errorf("a beamclaw daemon is already running (pid %d, http://%s)", st.PID, st.HTTPAddr)
	}
	// Report config problems here, every one of them, not from the log,
	// and the keys that do nothing yet.
	summary, err := a.backend().ConfigCheck(ctx)
	if err != nil {
		return err
	}
	warned := map[string]bool{}
	for _, line := range strings.Split(summary, "\n") {
		if w, ok := strings.CutPrefix(strings.TrimSpace(line), "warning: "); ok {
			fmt.Fprintln(a.stdout, "warning:", w)
			warned[w] = true
		}
	}
	if err := os.MkdirAll(dirOf(loc.LogFile), 0o700); err != nil {
		return fmt.Errorf("create log directory: %w", err)
	}
	logf, err := os.OpenFile(loc.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	defer logf.Close()
	offset, _ := logf.Seek(0, io.SeekEnd)
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	args := []string{"start", "--foreground", "--detached"}
	if a.configFlag != "" {
		args = append(args, "--config", a.configFlag)
	}
	child := exec.Command(self, args...)
	child.Stdout, child.Stderr = logf, logf
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		return fmt.Errorf("start daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	st, err := waitReady(ctx, c, exited)
	if err != nil {
		if reason := lastError(loc.LogFile, offset); reason != "" {
			return fmt.Errorf("daemon did not start: %s (log: %s)", reason, loc.LogFile)
		}
		return fmt.Errorf("daemon did not start: %w (log: %s)", err, loc.LogFile)
	}
	fmt.Fprintf(a.stdout, "beamclaw started (pid %d) on http://%s\ncontrol socket %s, log %s\n",
		st.PID, st.HTTPAddr, loc.Socket, loc.LogFile)
	for _, w := range st.Warnings {
		if !warned[w] {
			fmt.Fprintln(a.stdout, "warning:", w)
		}
	}
	a.warnMCPLogins(ctx)
	return nil
}

// warnMCPLogins names the MCP servers already known to need a login
// (configured with a client of their own and never logged in, or
// refused so far), each with the fix.
func (a *app) warnMCPLogins(ctx context.Context) {
	list, err := a.backend().MCPList(ctx)
	if err != nil {
		return
	}
	for _, s := range list.Servers {
		if s.State == "needs_login" {
			fmt.Fprintf(a.stdout, "warning: MCP server %s needs a login: run `beamclaw mcp login %s`\n", s.Name, s.Name)
		}
	}
}

func waitReady(ctx context.Context, c *client.Client, exited <-chan error) (st statusLine, err error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case werr := <-exited:
			if werr == nil {
				werr = errors.New("exited")
			}
			return st, werr
		case <-ctx.Done():
			return st, fmt.Errorf("not ready after %s", startTimeout)
		case <-tick.C:
			h, err := c.Health(ctx)
			if err != nil || !h.Ready && !awaitsQuorum(h) {
				continue
			}
			s, err := c.Status(ctx)
			if err != nil {
				continue
			}
			line := statusLine{PID: s.PID, HTTPAddr: s.HTTPAddr, Warnings: s.Warnings}
			if !h.Ready {
				line.Warnings = append(line.Warnings, h.Subsystems["cluster"].Detail+": it serves once a majority of the cluster's nodes run")
			}
			return line, nil
		}
	}
}

// awaitsQuorum: every subsystem is ready but the cluster, which waits for
// the other nodes. A cluster's first node has started then; waiting for
// the others here would keep each node's start from returning until the
// next one starts.
func awaitsQuorum(h protocol.Health) bool {
	cl, ok := h.Subsystems["cluster"]
	if !ok || cl.Ready {
		return false
	}
	for name, s := range h.Subsystems {
		if name != "cluster" && !s.Ready {
			return false
		}
	}
	return true
}

type statusLine struct {
	PID      int
	HTTPAddr string
	Warnings []string // the daemon's own, as its environment sees it
}

// lastError finds the daemon's fatal message in what it logged since
// offset: the line the foreground process printed before exiting.
func lastError(logFile string, offset int64) string {
	b, err := os.ReadFile(logFile)
	if err != nil || int64(len(b)) < offset {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b[offset:])), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "beamclaw:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "beamclaw:"))
		}
	}
	if len(lines) > 0 {
		return strings.TrimSpace(lines[len(lines)-1])
	}
	return ""
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		return path[:i]
	}
	return "."
}

func (a *app) newStopCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the running daemon gracefully",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pid, err := a.stop(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "beamclaw stopped (pid %d)\n", pid)
			return nil
		},
	}
}

// stop asks the daemon to stop and waits until its socket stops answering.
func (a *app) stop(ctx context.Context) (int, error) {
	loc, err := a.backend().Locate()
	if err != nil {
		return 0, err
	}
	c := client.NewUnix(loc.Socket)
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return 0, &exitError{code: 1, err: fmt.Errorf("no beamclaw daemon is running (socket %s)", loc.Socket)}
	}
	if err := c.Stop(ctx); err != nil {
		return 0, err
	}
	c.Close()
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		if exited(st.PID) {
			return st.PID, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, fmt.Errorf("daemon (pid %d) still running after %s", st.PID, startTimeout)
}

func (a *app) newRestartCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "restart",
		Short: "Stop the daemon if it runs, then start it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pid, err := a.stop(cmd.Context()); err == nil {
				fmt.Fprintf(a.stdout, "beamclaw stopped (pid %d)\n", pid)
			}
			return a.startDetached(cmd.Context())
		},
	}
}

// exited reports whether pid has ended: gone, or a zombie its parent has
// not reaped yet (a detached daemon's parent is init, which may be slow to
// reap, or not reap at all in a container).
func exited(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] == 'Z'
	}
	return false
}
