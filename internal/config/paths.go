package config

import (
	"errors"
	"path/filepath"
)

// HomeEnv names the variable that overrides the state directory.
const HomeEnv = "BEAMCLAW_HOME"

// Paths is the file layout under BEAMCLAW_HOME.
type Paths struct {
	Home       string // $BEAMCLAW_HOME, default ~/.beamclaw
	ConfigFile string // config.yaml
	DB         string // beamclaw.db (bbolt)
	RunDir     string // run/
	Socket     string // run/beamclaw.sock (control socket, mode 0600)
	PIDFile    string // run/beamclaw.pid
	LogDir     string // logs/
	LogFile    string // logs/beamclaw.log (the detached daemon's log)
	AgentsDir  string // agents/ (one workspace per agent)
	SkillsDir  string // skills/ (user-installed skills)
	KeyFile    string // secrets.key (mode 0600): the key sealing MCP OAuth tokens in the database
	InstallID  string // install-id (mode 0600): this installation's id, on its sandbox containers
	NATSDir    string // nats/: JetStream's files in cluster mode
}

// HomeDir returns BEAMCLAW_HOME, or ~/.beamclaw from HOME, read through
// getenv. The result is absolute.
func HomeDir(getenv func(string) string) (string, error) {
	if h := getenv(HomeEnv); h != "" {
		return filepath.Abs(h)
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("config: neither BEAMCLAW_HOME nor HOME is set")
	}
	return filepath.Abs(filepath.Join(home, ".beamclaw"))
}

// NewPaths lays out the files under home.
func NewPaths(home string) Paths {
	run := filepath.Join(home, "run")
	logs := filepath.Join(home, "logs")
	return Paths{
		Home:       home,
		ConfigFile: filepath.Join(home, "config.yaml"),
		DB:         filepath.Join(home, "beamclaw.db"),
		RunDir:     run,
		Socket:     filepath.Join(run, "beamclaw.sock"),
		PIDFile:    filepath.Join(run, "beamclaw.pid"),
		LogDir:     logs,
		LogFile:    filepath.Join(logs, "beamclaw.log"),
		AgentsDir:  filepath.Join(home, "agents"),
		SkillsDir:  filepath.Join(home, "skills"),
		KeyFile:    filepath.Join(home, "secrets.key"),
		InstallID:  filepath.Join(home, "install-id"),
		NATSDir:    filepath.Join(home, "nats"),
	}
}

// AgentDir is the workspace directory of one agent.
func (p Paths) AgentDir(name string) string { return filepath.Join(p.AgentsDir, name) }
