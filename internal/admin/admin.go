package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/skill"
	"github.com/beamclaw/beamclaw-go/pkg/client"
)

// RunFunc runs the daemon in this process until ctx ends (daemon.Run,
// bound by main to the same config file), logging to logOut.
type RunFunc func(ctx context.Context, logOut io.Writer, ready func(beamclaw.Ready)) error

// Options configure an Admin.
type Options struct {
	// ConfigFile is the --config flag; "" means $BEAMCLAW_HOME/config.yaml.
	ConfigFile string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	Build  beamclaw.Build
	// Run starts the daemon in this process (start --foreground, and the
	// TUI when no daemon runs).
	Run RunFunc
}

// Admin carries out the CLI's operations for one config file: with a
// running daemon through its control socket, without one on the files
// and the database directly. It implements the CLI's Backend.
type Admin struct {
	opts Options
	// skills is how the skill commands see the machine; tests replace it.
	skills func(out, errOut io.Writer) skillEnv
}

// New returns an Admin.
func New(opts Options) *Admin {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	a := &Admin{opts: opts}
	a.skills = func(out, errOut io.Writer) skillEnv {
		return skillEnv{machine: skill.Env{Getenv: opts.Getenv}, run: skill.ExecRunner{Stdout: out, Stderr: errOut}}
	}
	return a
}

func (a *Admin) getenv(k string) string { return a.opts.Getenv(k) }

// load resolves the paths and loads the config.
func (a *Admin) load() (config.Loaded, error) {
	return config.Resolve(a.opts.Getenv, a.opts.ConfigFile)
}

// paths resolves the paths without loading the config.
func (a *Admin) paths() (config.Paths, error) { return config.Locate(a.opts.Getenv, a.opts.ConfigFile) }

// Version describes the binary.
func (a *Admin) Version() (version, commit, goVersion string) {
	return a.opts.Build.Version, a.opts.Build.Commit, a.opts.Build.GoVersion
}

// Locate resolves the control socket, log file and pid file without
// loading the config (a broken config must not stop `beamclaw stop`).
func (a *Admin) Locate() (beamclaw.Location, error) {
	p, err := a.paths()
	if err != nil {
		return beamclaw.Location{}, err
	}
	return beamclaw.Location{Home: p.Home, Socket: p.Socket, LogFile: p.LogFile, PIDFile: p.PIDFile}, nil
}

// RunForeground runs the daemon in this process.
func (a *Admin) RunForeground(ctx context.Context, logOut io.Writer, ready func(beamclaw.Ready)) error {
	if a.opts.Run == nil {
		return errors.New("this build cannot run a daemon")
	}
	return a.opts.Run(ctx, logOut, ready)
}

// ConfigCheck validates the config and summarises it, with a warning for
// every key that does nothing yet and every enabled section that cannot
// run here (the sandbox without Docker or its image).
func (a *Admin) ConfigCheck(ctx context.Context) (string, error) {
	l, err := a.load()
	if err != nil {
		return "", err
	}
	src := l.Paths.ConfigFile
	if !l.Found {
		src = "built-in defaults (no " + l.Paths.ConfigFile + ")"
	}
	msg := fmt.Sprintf("config ok: %s\n  http %s, default provider %s, autonomy %s",
		src, l.Gateway.HTTP.Addr, l.Core.DefaultProvider, l.Core.AutonomyLevel)
	if missing := l.MissingSecrets(a.getenv); len(missing) > 0 {
		msg += "\n  unset secrets (their features stay off until set): " + strings.Join(missing, ", ")
	}
	for _, w := range l.Warnings() {
		msg += "\n  warning: " + w
	}
	if err := l.ValidateRuntime(a.getenv); err != nil {
		return "", err
	}
	for _, w := range a.cannotRun(ctx, l) {
		msg += "\n  warning: " + w
	}
	return msg, nil
}

// ConfigEdit sets (value != nil) or unsets key in the config file and
// returns the file's path; the file must stay valid (config.SetKey).
func (a *Admin) ConfigEdit(key string, value *string) (string, error) {
	paths, err := a.paths()
	if err != nil {
		return "", err
	}
	return paths.ConfigFile, config.EditKey(paths.ConfigFile, key, value)
}

// ConfigShow renders the effective config with secrets as references.
func (a *Admin) ConfigShow() ([]byte, error) {
	l, err := a.load()
	if err != nil {
		return nil, err
	}
	return l.Show(a.getenv)
}

// controlDo calls a control route of the running daemon. ok is false
// (with no error) when no daemon answers on the socket; a daemon's error
// answer becomes its message alone.
func controlDo(ctx context.Context, socket, method, path string, in, out any) (ok bool, err error) {
	c := client.NewUnix(socket)
	defer c.Close()
	err = c.Do(ctx, method, path, in, out)
	if errors.Is(err, client.ErrNoDaemon) {
		return false, nil
	}
	var ce *client.Error
	if errors.As(err, &ce) {
		return true, &control.UserError{Msg: ce.Message, Err: err}
	}
	return true, err
}
