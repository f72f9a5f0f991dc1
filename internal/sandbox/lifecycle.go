package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// imageID resolves the configured image, as a user-facing error when it
// is missing.
func (m *Manager) imageID(ctx context.Context) (string, error) {
	id, _, ok, err := imageLabels(ctx, m.engine, m.opts.Image)
	if err != nil {
		return "", beamclaw.E("sandbox.Run", beamclaw.KindUnavailable, "the Docker engine did not answer", err)
	}
	if !ok {
		return "", beamclaw.E("sandbox.Run", beamclaw.KindUnavailable, fmt.Sprintf(
			"the sandbox image %s is not built: run `beamclaw sandbox build`", m.opts.Image), nil)
	}
	return id, nil
}

func (m *Manager) createContainer(ctx context.Context, b *box, imageID string) (string, error) {
	res, err := m.engine.ContainerCreate(ctx, m.createOptions(b, imageID))
	if err != nil {
		if m.opts.Runtime != "" && strings.Contains(err.Error(), "runtime") {
			if rerr := checkRuntime(ctx, m.engine, m.opts.Runtime, "sandbox.Run"); rerr != nil {
				return "", rerr
			}
		}
		return "", fmt.Errorf("create container %s: %w", b.name, err)
	}
	return res.ID, nil
}

func (m *Manager) startContainer(ctx context.Context, id string) error {
	if _, err := m.engine.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("start container: %w", err)
	}
	return nil
}

// removeContainer force-removes id, even when ctx has ended.
func (m *Manager) removeContainer(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	_, err := m.engine.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true})
	if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
		m.log.Warn("sandbox: cannot remove container", "container", shortID(id), "err", err)
	}
}

// waitExit reports, on the returned channel, how id exited; it must be
// called before the container starts. done is closed once its goroutine
// ended, which happens soon after ctx ends.
func (m *Manager) waitExit(ctx context.Context, id string) (exited <-chan string, done <-chan struct{}) {
	out := make(chan string, 1)
	fin := make(chan struct{})
	w := m.engine.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	go func() {
		defer close(fin)
		select {
		case r := <-w.Result:
			out <- fmt.Sprintf("exit status %d", r.StatusCode)
		case err := <-w.Error:
			if ctx.Err() == nil {
				out <- fmt.Sprintf("wait failed: %v", err)
			}
		}
	}()
	return out, fin
}

// acceptRunner waits for the runner's connection and its ready line.
func (m *Manager) acceptRunner(ctx context.Context, ln *net.UnixListener, exited <-chan string, id string) (net.Conn, *bufio.Reader, error) {
	type accepted struct {
		c   net.Conn
		err error
	}
	got := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		got <- accepted{c, err}
	}()
	var fail error
	select {
	case a := <-got:
		if a.err != nil {
			return nil, nil, fmt.Errorf("accept the runner: %w", a.err)
		}
		return m.handshake(a.c)
	case code := <-exited:
		fail = fmt.Errorf("the container exited during start (%s): %s", code, m.logTail(id))
	case <-ctx.Done():
		fail = ctx.Err()
	case <-m.clk.After(startTimeout):
		fail = fmt.Errorf("the runner did not connect within %s: %s", startTimeout, m.logTail(id))
	}
	ln.Close()
	if a := <-got; a.c != nil {
		a.c.Close()
	}
	return nil, nil, fail
}

func (m *Manager) handshake(c net.Conn) (net.Conn, *bufio.Reader, error) {
	rd := bufio.NewReaderSize(c, 64<<10)
	_ = c.SetReadDeadline(time.Now().Add(startTimeout))
	line, err := rd.ReadBytes('\n')
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("read the runner's handshake: %w", err)
	}
	var hello struct {
		Ready bool `json:"ready"`
	}
	if err := json.Unmarshal(line, &hello); err != nil || !hello.Ready {
		c.Close()
		return nil, nil, fmt.Errorf("unexpected runner handshake %q", bytes.TrimSpace(line))
	}
	return c, rd, nil
}

// logTail is the end of a container's log, for start errors.
func (m *Manager) logTail(id string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc, err := m.engine.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: "20"})
	if err != nil {
		return "(no log)"
	}
	defer rc.Close()
	var out tailBuffer
	if _, err := stdcopy.StdCopy(&out, &out, rc); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return "(log unreadable)"
	}
	if s := out.String(); s != "" {
		return s
	}
	return "(empty log)"
}
