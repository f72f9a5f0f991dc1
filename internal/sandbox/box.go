package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

// startTimeout bounds a container's start up to its runner's handshake.
const startTimeout = 30 * time.Second

// errBoxGone: the container stopped before a script was sent to it.
var errBoxGone = errors.New("the sandbox container stopped")

// box is one scope's container: a suture service that creates it, holds
// its runner connection and bridge, and removes it when it stops.
type box struct {
	m         *Manager
	key       string
	caller    Caller // the first caller (labels, workspace)
	name      string
	workspace string
	dir       string

	// guarded by registry.mu
	inflight int
	lastUsed time.Time
	token    suture.ServiceToken
	hasToken bool

	served   atomic.Bool
	ready    chan struct{} // closed once started, or failed (startErr)
	startErr error
	dead     chan struct{} // closed when the service ends
	deadOnce sync.Once

	id   string   // container id, set before ready
	conn net.Conn // runner connection, set before ready
	wmu  sync.Mutex

	mu     sync.Mutex
	nextID int64
	runs   map[int64]*run
	tokens map[string]*run

	toolsMu   sync.Mutex
	toolsHash string
}

func newBox(m *Manager, key string, c Caller) *box {
	return &box{
		m: m, key: key, caller: c, name: boxName(key), workspace: m.workspaceFor(c),
		ready: make(chan struct{}), dead: make(chan struct{}),
		runs: map[int64]*run{}, tokens: map[string]*run{},
	}
}

func (b *box) String() string { return "sandbox-container " + b.name }

// Serve starts the container and holds it until ctx ends or it fails; it
// always removes the container and its directory before returning. A box
// serves once: it is never restarted (the next run makes a new one).
func (b *box) Serve(ctx context.Context) (err error) {
	if !b.served.CompareAndSwap(false, true) {
		return supervise.NoRestart(errors.New("sandbox container service already ended"))
	}
	defer func() {
		b.markReady(err) // no-op when already ready
		b.deadOnce.Do(func() { close(b.dead) })
		b.m.reg.forget(b)
		b.failRuns()
		if ctx.Err() == nil {
			err = supervise.NoRestart(err)
		} else {
			err = nil
		}
	}()
	return b.serve(ctx)
}

func (b *box) markReady(err error) {
	select {
	case <-b.ready:
		return
	default:
	}
	if err == nil {
		err = errors.New("sandbox container ended before it was ready")
	}
	var be *beamclaw.Error
	if !errors.As(err, &be) {
		err = beamclaw.E("sandbox.Run", beamclaw.KindUnavailable, "the sandbox container could not start", err)
	}
	b.startErr = err
	close(b.ready)
}

func (b *box) serve(ctx context.Context) error {
	dir, err := makeBoxDir(b.m.opts.BridgeSocketDir)
	if err != nil {
		return err
	}
	b.dir = dir
	defer os.RemoveAll(dir)
	runnerLn, err := listenUnix(filepath.Join(dir, "runner.sock"))
	if err != nil {
		return err
	}
	defer runnerLn.Close()
	bridgeLn, err := listenUnix(filepath.Join(dir, "bridge.sock"))
	if err != nil {
		return err
	}
	defer bridgeLn.Close()

	imageID, err := b.m.imageID(ctx)
	if err != nil {
		return err
	}
	id, err := b.m.createContainer(ctx, b, imageID)
	if err != nil {
		return err
	}
	b.id = id
	defer b.m.removeContainer(id)
	waitCtx, stopWait := context.WithCancel(ctx)
	exited, waitDone := b.m.waitExit(waitCtx, id)
	defer func() { stopWait(); <-waitDone }()
	if err := b.m.startContainer(ctx, id); err != nil {
		return err
	}
	conn, rd, err := b.m.acceptRunner(ctx, runnerLn, exited, id)
	if err != nil {
		return err
	}
	runnerLn.Close()
	b.conn = conn
	defer conn.Close()
	close(b.ready)

	var wg sync.WaitGroup
	br := newBridgeServer(b)
	wg.Add(2)
	go func() { defer wg.Done(); br.serve(bridgeLn) }()
	readErr := make(chan error, 1)
	go func() { defer wg.Done(); readErr <- b.readFrames(rd) }()
	select {
	case <-ctx.Done():
		err = nil
	case err = <-readErr:
		err = fmt.Errorf("runner connection of %s: %w", b.name, err)
	case code := <-exited:
		err = fmt.Errorf("container %s exited (%s)", b.name, code)
	}
	conn.Close()
	bridgeLn.Close()
	br.closeAll()
	wg.Wait()
	return err
}

// failRuns ends every run still waiting (the container is gone).
func (b *box) failRuns() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, r := range b.runs {
		r.finish(frame{}, errBoxDied)
		delete(b.runs, id)
		delete(b.tokens, r.token)
	}
}

// abort closes the runner connection, which ends the service.
func (b *box) abort() {
	if b.conn != nil {
		b.conn.Close()
	}
}

// makeBoxDir makes <base>/<random>, 0711: the container's user reaches
// the sockets by name, others cannot list or guess it.
func makeBoxDir(base string) (string, error) {
	if err := ensureDir(base); err != nil {
		return "", fmt.Errorf("bridge directory %s: %w", base, err)
	}
	dir := filepath.Join(base, randomHex(8))
	if err := os.Mkdir(dir, 0o711); err != nil {
		return "", fmt.Errorf("bridge directory: %w", err)
	}
	if err := os.Chmod(dir, 0o711); err != nil { // umask
		return "", fmt.Errorf("bridge directory: %w", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "tools"), 0o755); err != nil {
		return "", fmt.Errorf("tools directory: %w", err)
	}
	return dir, os.Chmod(filepath.Join(dir, "tools"), 0o755)
}

func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// listenUnix listens on path with mode 0666: the container's user (uid
// 10001) must be able to connect; the directory keeps others out.
func listenUnix(path string) (*net.UnixListener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	return ln, nil
}
