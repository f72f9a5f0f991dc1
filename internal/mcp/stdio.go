package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// inheritedEnv are the only variables of the daemon's environment a stdio
// server sees (the set the reference MCP SDKs pass); everything else,
// secrets included, must be given explicitly in the server's env.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ"}

// stopGrace is how long a stdio server gets to exit after its stdin is
// closed before its process group is killed.
const stopGrace = 2 * time.Second

// exitWait bounds how long a failed request waits for the process's exit
// status before reporting the transport error itself.
const exitWait = 300 * time.Millisecond

// stderrTail is how much of a server's stderr is kept for LastError.
const stderrTail = 512

func serverEnv(extra map[string]string) []string {
	env := make([]string, 0, len(inheritedEnv)+len(extra))
	for _, k := range inheritedEnv {
		if _, set := extra[k]; set {
			continue
		}
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// dialStdio starts the server process in its own process group with
// pipes we own, so its exit is seen at once (cmd.Wait) even when children
// keep stdout open, and the whole group is killed on close.
func dialStdio(cfg ServerConfig, proto string, logger *slog.Logger) (*conn, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Cwd
	cmd.Env = serverEnv(cfg.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	setProcessGroup(cmd)
	startErr := cmd.Start()
	closeAll(inR, outW, errW)
	if startErr != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("start %s: %w", cfg.Command, startErr)
	}

	c := newConn(cfg.Name)
	c.exitWait = exitWait
	tail := &tailBuffer{max: stderrTail}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(tail, errR)
	}()
	exited := make(chan struct{})
	go func() {
		waitErr := cmd.Wait()
		killProcessGroup(cmd)
		close(exited)
		c.markDead(exitError(waitErr, tail))
	}()
	c.release = func() {
		select {
		case <-exited:
		case <-time.After(stopGrace):
			killProcessGroup(cmd)
			<-exited
		}
		closeAll(outR, errR)
		<-drained
	}
	tr := transport.NewIO(outR, inW, nil)
	cl := client.NewClient(tr, client.WithProtocolVersion(proto),
		client.WithElicitationHandler(&elicitor{c: c, server: cfg.Name, log: logger}))
	if err := c.start(context.Background(), cl); err != nil {
		c.close()
		return nil, err
	}
	logger.Debug("mcp stdio server started", "server", cfg.Name, "pid", cmd.Process.Pid)
	return c, nil
}

func exitError(waitErr error, tail *tailBuffer) error {
	msg := "process exited"
	if waitErr != nil {
		msg += ": " + waitErr.Error()
	}
	if s := tail.lastLine(); s != "" {
		msg += " (stderr: " + s + ")"
	}
	return errors.New(msg)
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// lastLine is the last non-empty line written, at most 200 bytes.
func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 200 {
		last = last[len(last)-200:]
	}
	return last
}
