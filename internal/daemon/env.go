package daemon

import (
	"fmt"
	"os"

	"github.com/beamclaw/beamclaw-go/internal/config"
)

// Build describes the binary, set by main from -ldflags and build info.
type Build struct {
	Version   string
	Commit    string
	GoVersion string
}

// Env is where a daemon or a CLI command finds its files and settings.
type Env struct {
	Getenv     func(string) string
	ConfigFlag string // --config, "" for $BEAMCLAW_HOME/config.yaml
	Build      Build
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

// load resolves the paths and loads the config: an explicit --config must
// exist; the default file is optional.
func (e Env) load() (*config.Config, config.Paths, error) {
	home, err := config.HomeDir(e.getenv)
	if err != nil {
		return nil, config.Paths{}, err
	}
	paths := config.NewPaths(home)
	if e.ConfigFlag != "" {
		cfg, err := config.Load(e.ConfigFlag)
		if err != nil {
			return nil, paths, err
		}
		paths.ConfigFile = e.ConfigFlag
		return cfg, paths, nil
	}
	cfg, _, err := config.LoadOptional(paths.ConfigFile)
	if err != nil {
		return nil, paths, err
	}
	return cfg, paths, nil
}

// Locate resolves the control socket, log file and pid file without
// loading the config (a broken config must not stop `beamclaw stop`).
func (e Env) Locate() (Location, error) {
	home, err := config.HomeDir(e.getenv)
	if err != nil {
		return Location{}, err
	}
	p := config.NewPaths(home)
	return Location{Home: p.Home, Socket: p.Socket, LogFile: p.LogFile, PIDFile: p.PIDFile}, nil
}

// Location is what the CLI needs to reach or start a daemon.
type Location struct {
	Home, Socket, LogFile, PIDFile string
}

func ensureDirs(p config.Paths) error {
	for _, d := range []string{p.Home, p.RunDir, p.LogDir, p.AgentsDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	return nil
}
