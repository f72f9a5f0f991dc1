package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/obs"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ErrRunning means another daemon already serves this BEAMCLAW_HOME.
var ErrRunning = errors.New("a beamclaw daemon is already running")

// Ready is told to the caller once the daemon serves.
type Ready struct {
	PID      int
	HTTPAddr string
	Socket   string
}

// daemon holds what one run of the daemon owns.
type daemon struct {
	env     Env
	cfg     *config.Config
	paths   config.Paths
	log     *slog.Logger
	bus     *obs.Bus
	metrics *obs.Metrics
	db      *store.DB
	public  *gateway.Listener
	control *gateway.Listener
	started time.Time
	stop    context.CancelFunc

	mu     sync.Mutex
	checks map[string]func() protocol.Subsystem
}

// Run starts the daemon and serves until ctx is done (a signal) or the
// tree fails for good, then shuts down within core.shutdown_timeout. logOut
// receives logs when obs.log.file is empty.
func Run(ctx context.Context, env Env, logOut io.Writer, ready func(Ready)) (err error) {
	cfg, paths, err := env.load()
	if err != nil {
		return err
	}
	if err := cfg.ValidateRuntime(env.getenv); err != nil {
		return err
	}
	if err := ensureDirs(paths); err != nil {
		return err
	}
	if pid, ok := running(ctx, paths.Socket); ok {
		return fmt.Errorf("%w (pid %d, socket %s)", ErrRunning, pid, paths.Socket)
	}
	log, closeLog, err := openLog(cfg.Obs.Log, logOut)
	if err != nil {
		return err
	}
	defer closeLog()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := &daemon{env: env, cfg: cfg, paths: paths, log: log, started: time.Now(), stop: cancel,
		checks: map[string]func() protocol.Subsystem{}}
	if err := d.open(); err != nil {
		return err
	}
	defer d.close()

	root, err := d.tree()
	if err != nil {
		return err
	}
	done := root.ServeBackground(ctx)
	log.Info("beamclaw started", "pid", os.Getpid(), "http", d.public.Addr().String(),
		"socket", paths.Socket, "version", env.Build.Version)
	if ready != nil {
		ready(Ready{PID: os.Getpid(), HTTPAddr: d.public.Addr().String(), Socket: paths.Socket})
	}
	return d.wait(ctx, done)
}

// wait returns when the tree stops: nil after a requested stop, the
// fatal reason otherwise.
func (d *daemon) wait(ctx context.Context, done <-chan error) error {
	select {
	case err := <-done:
		if ctx.Err() == nil {
			d.log.Error("supervision tree failed", "err", err)
			return fmt.Errorf("daemon stopped: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	d.log.Info("shutting down", "timeout", d.cfg.Core.ShutdownTimeout.Duration)
	select {
	case <-done:
		d.log.Info("stopped")
		return nil
	case <-time.After(d.cfg.Core.ShutdownTimeout.Duration + time.Second):
		return fmt.Errorf("shutdown did not finish within %s", d.cfg.Core.ShutdownTimeout.Duration)
	}
}

// open opens the store and the listeners, before the tree starts.
func (d *daemon) open() (err error) {
	d.db, err = store.Open(d.paths.DB, store.Options{PIDFile: d.paths.PIDFile})
	if err != nil {
		return err
	}
	if err := os.WriteFile(d.paths.PIDFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return fmt.Errorf("write pid file: %w", err)
	}
	ln, err := net.Listen("tcp", d.cfg.Gateway.HTTP.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is the port taken? set gateway.http.addr)", d.cfg.Gateway.HTTP.Addr, err)
	}
	d.public = gateway.NewListener(ln)
	_ = os.Remove(d.paths.Socket) // stale: running() found nobody answering
	ul, err := net.Listen("unix", d.paths.Socket)
	if err != nil {
		return fmt.Errorf("listen on control socket %s: %w", d.paths.Socket, err)
	}
	d.control = gateway.NewListener(ul)
	if err := os.Chmod(d.paths.Socket, 0o600); err != nil {
		return fmt.Errorf("control socket mode: %w", err)
	}
	return nil
}

// close releases everything open() opened, the store last.
func (d *daemon) close() {
	if d.control != nil {
		_ = d.control.Release()
	}
	if d.public != nil {
		_ = d.public.Release()
	}
	if d.db != nil {
		_ = os.Remove(d.paths.PIDFile)
		if err := d.db.Close(); err != nil {
			d.log.Error("close store", "err", err)
		}
	}
}

// running reports whether a daemon answers on socket, and its pid.
func running(ctx context.Context, socket string) (int, bool) {
	c := client.NewUnix(socket)
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil {
		return 0, false
	}
	return st.PID, true
}

func openLog(lc config.Log, out io.Writer) (*slog.Logger, func(), error) {
	closeFn := func() {}
	if lc.File != "" {
		f, err := os.OpenFile(lc.File, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("open log file: %w", err)
		}
		out, closeFn = f, func() { _ = f.Close() }
	}
	log, err := obs.NewLogger(out, lc.Level, lc.Format)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return log, closeFn, nil
}

// check registers a readiness probe shown in /health and status.
func (d *daemon) check(name string, fn func() protocol.Subsystem) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.checks[name] = fn
}

func (d *daemon) subsystems() map[string]protocol.Subsystem {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]protocol.Subsystem, len(d.checks))
	for name, fn := range d.checks {
		out[name] = fn()
	}
	return out
}

// guard wraps a service with the standard restart rules and metrics.
func (d *daemon) guard(svc suture.Service) suture.Service {
	return supervise.Guard(svc, supervise.GuardOptions{OnFailure: func(name string, err error) {
		d.metrics.Restarted(name)
	}})
}
