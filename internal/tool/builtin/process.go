package builtin

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

	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// ProcessOptions configure the tools that start programs (bash, terminal).
type ProcessOptions struct {
	// EnvAllow adds variable names (or NAME_* patterns) children inherit
	// beyond tool.FilterEnv's defaults (tools.process.env_allow).
	EnvAllow []string
	// EnvDeny removes names even if allowed (tools.process.env_deny).
	EnvDeny []string
	// Environ supplies the parent environment (default os.Environ).
	Environ func() []string
	// DefaultTimeout bounds a run without timeout_seconds (default 60 s).
	DefaultTimeout time.Duration
	// MaxTimeout caps timeout_seconds (default 10 min).
	MaxTimeout time.Duration
	// MaxOutputBytes caps what a run returns (tools.max_output_bytes,
	// default tool.DefaultMaxOutputBytes, the registry's cap too): the
	// capture keeps trailerRoom of it for the lines after the output.
	MaxOutputBytes int
	// Shell is the bash binary (default "bash", looked up on PATH).
	Shell string
	// Isolate, when set, adjusts how each program starts: the daemon
	// starts every tool process under an init of its own in new user, PID
	// and mount namespaces, so that it sees no other process of the host
	// (procguard.Isolator.Wrap).
	Isolate func(*exec.Cmd)
}

func (o ProcessOptions) withDefaults() ProcessOptions {
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	o.DefaultTimeout = orDuration(o.DefaultTimeout, 60*time.Second)
	o.MaxTimeout = orDuration(o.MaxTimeout, 10*time.Minute)
	o.MaxOutputBytes = orInt(o.MaxOutputBytes, tool.DefaultMaxOutputBytes)
	if o.Shell == "" {
		o.Shell = "bash"
	}
	return o
}

// trailerRoom is what the capture leaves of MaxOutputBytes for the lines
// after the output (its truncation marker, the exit line), so that the
// registry's cap, the same number, never cuts them off.
const trailerRoom = 256

// pipeDrainGrace is how long output is still read after the process group
// was killed, for descendants that escaped the group and hold the pipe.
const pipeDrainGrace = 2 * time.Second

// runProcess runs argv in dir with a filtered environment, in its own
// process group. Output is stdout and stderr interleaved. When the process
// exits, times out or ctx ends, the whole group is killed, so nothing it
// started outlives the call.
func runProcess(ctx context.Context, o ProcessOptions, argv []string, dir string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", fmt.Errorf("create pipe: %w", err)
	}
	defer pr.Close()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = tool.FilterEnv(o.Environ(), o.EnvAllow, o.EnvDeny)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if o.Isolate != nil {
		o.Isolate(cmd)
	}
	cmd.Cancel = func() error { return killGroup(cmd) }
	startErr := cmd.Start()
	pw.Close() // the child holds its own copy
	if startErr != nil {
		return "", fmt.Errorf("start %s: %w", argv[0], startErr)
	}
	buf := &capBuffer{max: max(o.MaxOutputBytes-trailerRoom, 1)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(buf, pr)
	}()
	waitErr := cmd.Wait()
	_ = killGroup(cmd)
	_ = pr.SetReadDeadline(time.Now().Add(pipeDrainGrace))
	<-copied
	out := buf.String()
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return out, fmt.Errorf("%s timed out after %s; its process group was killed", argv[0], timeout)
	case ctx.Err() != nil:
		return out, fmt.Errorf("%s canceled; its process group was killed: %w", argv[0], ctx.Err())
	}
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out + exitLine(waitErr), nil
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func exitLine(waitErr error) string {
	var ee *exec.ExitError
	switch {
	case waitErr == nil:
		return "[exit code: 0]"
	case errors.As(waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("[killed by signal: %s]", ws.Signal())
		}
		return fmt.Sprintf("[exit code: %d]", ee.ExitCode())
	}
	return fmt.Sprintf("[wait failed: %v]", waitErr)
}

// capBuffer keeps the first max bytes written and counts the rest.
type capBuffer struct {
	b       strings.Builder
	max     int
	dropped int
}

func (c *capBuffer) Write(p []byte) (int, error) {
	room := c.max - c.b.Len()
	if room >= len(p) {
		c.b.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.b.Write(p[:room])
	}
	c.dropped += len(p) - max(room, 0)
	return len(p), nil
}

func (c *capBuffer) String() string {
	if c.dropped == 0 {
		return c.b.String()
	}
	return c.b.String() + fmt.Sprintf("\n[output truncated: %d bytes omitted]", c.dropped)
}
