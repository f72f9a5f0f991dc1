package console

import (
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is gateway.console: the web console. The package owns it.
type Config struct {
	// Enabled serves the console at /console (and / redirects there).
	Enabled bool `yaml:"enabled"`
	// SessionHours is how long a browser stays signed in; it signs in
	// again after (a restart does not sign it out).
	SessionHours int `yaml:"session_hours"`
}

// DefaultConfig is the section when the file says nothing.
func DefaultConfig() Config { return Config{Enabled: true, SessionHours: 12} }

// Validate records every problem of the keys under p.
func (c Config) Validate(p *setting.Problems) {
	p.Between("session_hours", c.SessionHours, 1, 24*30)
}

// Settings is the section as the daemon's plan holds it.
type Settings struct {
	SessionTTL time.Duration // how long a sign-in lasts
}

// Settings converts the section.
func (c Config) Settings() Settings {
	return Settings{SessionTTL: time.Duration(c.SessionHours) * time.Hour}
}
