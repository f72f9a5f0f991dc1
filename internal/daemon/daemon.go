package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/cluster"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/obs"
	"github.com/beamclaw/beamclaw-go/internal/procguard"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ErrRunning means another daemon already serves this BEAMCLAW_HOME.
var ErrRunning = errors.New("a beamclaw daemon is already running")

// Options say which config the daemon runs and where it reports.
type Options struct {
	// ConfigFile is the --config flag; "" means $BEAMCLAW_HOME/config.yaml.
	ConfigFile string
	// Getenv reads the environment: BEAMCLAW_HOME, {env: VAR} secrets,
	// BEAMCLAW_USER (os.Getenv when nil).
	Getenv func(string) string
	Build  beamclaw.Build
	// LogOut receives logs when obs.log.file is empty; nil (a detached
	// daemon) logs to the home's log file, rotated.
	LogOut io.Writer
	// Ready, when set, is called once the daemon serves.
	Ready func(beamclaw.Ready)
}

// daemon holds what one run of the daemon owns.
type daemon struct {
	opts    Options
	plan    *plan
	paths   config.Paths
	log     *slog.Logger
	bus     *obs.Bus
	metrics *obs.Metrics
	events  *control.Events        // the live event stream of the admin API
	show    func() ([]byte, error) // the configuration as config show renders it (no secret values)
	db      *store.DB
	public  *gateway.Listener
	control *gateway.Listener
	sandbox *sandbox.Manager // nil unless sandbox.enabled; closed after the tree
	cluster *cluster.Node    // nil unless cluster.enabled: this node's embedded NATS; closed before the store
	leaving *leave           // cluster mode: a stop first hands this node's sessions on (cluster.go)
	started time.Time
	stop    context.CancelFunc
	ctx     context.Context // the daemon's life: ended by a stop
	watch   *stopwatch      // the start-up phases' durations (debug lines)

	// admit is the console's sign-in check for the gateway (nil: no console).
	admit func(r *http.Request) bool
	// editMu makes the admin API's and the console's config edits one at
	// a time (editConfig).
	editMu sync.Mutex

	mu     sync.Mutex
	checks map[string]func() protocol.Subsystem
}

// Run starts the daemon and serves until ctx is done (a signal) or the
// tree fails for good, then shuts down within core.shutdown_timeout.
func Run(ctx context.Context, opts Options) (err error) {
	watch := newStopwatch(time.Now())
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	l, err := config.Resolve(opts.Getenv, opts.ConfigFile)
	if err != nil {
		return err
	}
	if err := l.ValidateRuntime(opts.Getenv); err != nil {
		return err
	}
	p, err := buildPlan(l, opts.Getenv)
	if err != nil {
		return err
	}
	if err := l.Paths.Ensure(); err != nil {
		return err
	}
	if pid, ok := client.Running(ctx, l.Paths.Socket); ok {
		return fmt.Errorf("%w (pid %d, socket %s)", ErrRunning, pid, l.Paths.Socket)
	}
	log, closeLog, err := openLog(p.Log, opts.LogOut, l.Paths.LogFile)
	if err != nil {
		return err
	}
	defer closeLog()
	watch.log = log
	watch.lap("config")
	for _, w := range p.Warnings {
		log.Warn(w)
	}
	if err := procguard.Harden(); err != nil {
		log.Warn("the daemon's /proc entries stay readable to its tools", "err", err)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cfg := l.Config
	show := func() ([]byte, error) { return cfg.Show(opts.Getenv) } // the admin API's config view, rendered when asked
	d := &daemon{opts: opts, plan: p, paths: l.Paths, log: log, started: time.Now(), stop: cancel, show: show, ctx: ctx,
		watch: watch, checks: map[string]func() protocol.Subsystem{}}
	if err := d.open(); err != nil {
		return err
	}
	defer d.close()

	root, err := d.tree()
	if err != nil {
		return err
	}
	// A large file's check ran while the tree was built; a damaged file
	// is refused here, before anything serves or writes.
	if err := d.db.Checked(ctx); err != nil {
		return err
	}
	watch.lap("store_check")
	// The tree outlives the stop request by the cluster's leave (d.wait).
	treeCtx, stopTree := context.WithCancel(context.WithoutCancel(ctx))
	defer stopTree()
	done := root.ServeBackground(treeCtx)
	log.Info("beamclaw started", "pid", os.Getpid(), "http", d.public.Addr().String(),
		"socket", d.paths.Socket, "version", opts.Build.Version)
	if opts.Ready != nil {
		opts.Ready(beamclaw.Ready{PID: os.Getpid(), HTTPAddr: d.public.Addr().String(), Socket: d.paths.Socket})
	}
	watch.total()
	return d.wait(ctx, done, stopTree)
}

// wait returns when the tree stops: nil after a requested stop, the
// fatal reason otherwise.
func (d *daemon) wait(ctx context.Context, done <-chan error, stopTree context.CancelFunc) error {
	select {
	case err := <-done:
		if ctx.Err() == nil {
			d.log.Error("supervision tree failed", "err", err)
			return fmt.Errorf("daemon stopped: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	d.log.Info("shutting down", "timeout", d.plan.ShutdownTimeout)
	d.leave()
	stopTree()
	select {
	case <-done:
		d.log.Info("stopped")
		return nil
	case <-time.After(d.plan.ShutdownTimeout + time.Second):
		return fmt.Errorf("shutdown did not finish within %s", d.plan.ShutdownTimeout)
	}
}

// open opens the store and the listeners, before the tree starts.
func (d *daemon) open() (err error) {
	d.db, err = store.Open(d.paths.DB, store.Options{PIDFile: d.paths.PIDFile, Logger: d.log})
	if err != nil {
		return err
	}
	d.watch.lap("store_open")
	if err := d.openCluster(); err != nil {
		return err
	}
	if err := os.WriteFile(d.paths.PIDFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return fmt.Errorf("write pid file: %w", err)
	}
	ln, err := net.Listen("tcp", d.plan.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is the port taken? set gateway.http.addr)", d.plan.Addr, err)
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
	d.watch.lap("listen")
	return nil
}

// close releases everything open() and the tree opened, the store last.
func (d *daemon) close() {
	if d.sandbox != nil {
		_ = d.sandbox.Close()
	}
	if d.control != nil {
		_ = d.control.Release()
	}
	if d.public != nil {
		_ = d.public.Release()
	}
	if d.cluster != nil {
		d.cluster.Close()
	}
	if d.db != nil {
		_ = os.Remove(d.paths.PIDFile)
		if err := d.db.Close(); err != nil {
			d.log.Error("close store", "err", err)
		}
	}
}

// openLog opens the logger: obs.log.file when set, else out, else (a
// detached daemon, whose out is nil) the home's log file, with stdout and
// stderr pointed at it. Files rotate at obs.log.max_size_mb.
func openLog(lc obs.LogOptions, out io.Writer, homeLog string) (*slog.Logger, func(), error) {
	closeFn := func() {}
	rot := lc.Rotate
	path := lc.File
	if path == "" && out == nil {
		path, rot.Std = homeLog, true
	}
	if path != "" {
		f, err := obs.OpenRotating(path, rot)
		if err != nil {
			return nil, nil, err
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
