package scheduler

import (
	"fmt"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the scheduler section of config.yaml. The package owns it:
// defaults from its constants, Validate with the rules the scheduler
// applies (delivery targets through ParseDelivery, zones through the
// zone loader), and Options.
type Config struct {
	Enabled         bool `yaml:"enabled"`
	MaxJobsPerAgent int  `yaml:"max_jobs_per_agent"`
	// MaxJobsPerUser bounds the jobs each user makes in conversation
	// (Options.MaxJobsPerUser).
	MaxJobsPerUser  int    `yaml:"max_jobs_per_user"`
	DefaultAutonomy string `yaml:"default_autonomy"`
	MaxErrors       int    `yaml:"max_errors"`
	// TimeZone is the IANA zone of at and cron schedules that name none,
	// and of the heartbeats' active hours ("" = UTC).
	TimeZone string `yaml:"time_zone"`
	// WebhookAllowHosts may be loopback or private for webhook delivery
	// (local automations); every other webhook goes through the SSRF guard.
	WebhookAllowHosts []string        `yaml:"webhook_allow_hosts"`
	Heartbeat         HeartbeatConfig `yaml:"heartbeat"`
}

// HeartbeatConfig is scheduler.heartbeat: periodic agent check-ins.
type HeartbeatConfig struct {
	DefaultIntervalMs int               `yaml:"default_interval_ms"`
	SuppressOK        bool              `yaml:"suppress_ok"`
	ActiveHours       setting.HourRange `yaml:"active_hours"`
	MaxTokens         int               `yaml:"max_tokens"` // cap of one heartbeat's answer
	// Deliver is where heartbeat answers go: a delivery target
	// (ParseDelivery).
	Deliver string `yaml:"deliver"`
	// User is whose check-in it is ("" = BEAMCLAW_USER, else the daemon's
	// own user as the terminal UI names it, local:$USER).
	User string `yaml:"user"`
}

// DefaultActiveHours are when heartbeats fire: [08:00, 22:00).
var DefaultActiveHours = setting.HourRange{8, 22}

// DefaultConfig is the section when the file says nothing: off, with the
// package's defaults when switched on.
func DefaultConfig() Config {
	return Config{
		MaxJobsPerAgent:   DefaultMaxJobsPerAgent,
		MaxJobsPerUser:    DefaultMaxJobsPerUser,
		DefaultAutonomy:   string(beamclaw.Supervised),
		MaxErrors:         DefaultMaxErrors,
		WebhookAllowHosts: []string{},
		Heartbeat: HeartbeatConfig{
			DefaultIntervalMs: int(DefaultHeartbeatInterval / time.Millisecond),
			SuppressOK:        true,
			ActiveHours:       DefaultActiveHours,
			MaxTokens:         DefaultHeartbeatMaxTokens,
			Deliver:           string(DeliverTUI),
		},
	}
}

// Validate records every problem of the section under p.
func (c Config) Validate(p *setting.Problems) {
	p.Min("max_jobs_per_agent", c.MaxJobsPerAgent, 1)
	p.Min("max_jobs_per_user", c.MaxJobsPerUser, 1)
	p.Enum("default_autonomy", c.DefaultAutonomy, beamclaw.AutonomyLevels())
	p.Min("max_errors", c.MaxErrors, 1)
	if _, err := loadZone(c.TimeZone); err != nil {
		p.Add("time_zone", "%q is not an IANA time zone (e.g. Europe/Berlin)", c.TimeZone)
	}
	for i, h := range c.WebhookAllowHosts {
		if h = strings.TrimSpace(h); h == "" || strings.ContainsAny(h, "/ @") {
			p.Add(fmt.Sprintf("webhook_allow_hosts[%d]", i), "%q: want a host name or host:port", c.WebhookAllowHosts[i])
		}
	}
	hb := p.Under("heartbeat")
	hb.Min("default_interval_ms", c.Heartbeat.DefaultIntervalMs, 1000)
	hb.Hours("active_hours", c.Heartbeat.ActiveHours)
	hb.Min("max_tokens", c.Heartbeat.MaxTokens, 1)
	if _, err := ParseDelivery(c.Heartbeat.Deliver); err != nil {
		hb.Add("deliver", "%s", err.Error()) // a string, so a value that looks like a secret is redacted
	}
}

// Options is the section as the Scheduler's Options; the wiring adds the
// store, turns, deliverer, webhook clients, scrubber and clock.
func (c Config) Options() Options {
	hb := c.Heartbeat
	return Options{
		MaxJobsPerAgent: c.MaxJobsPerAgent,
		MaxJobsPerUser:  c.MaxJobsPerUser,
		MaxErrors:       c.MaxErrors,
		DefaultAutonomy: beamclaw.Autonomy(c.DefaultAutonomy),
		TimeZone:        c.TimeZone,
		Webhook:         WebhookOptions{AllowHosts: c.WebhookAllowHosts},
		Heartbeat: HeartbeatOptions{
			Interval:    time.Duration(hb.DefaultIntervalMs) * time.Millisecond,
			SuppressOK:  hb.SuppressOK,
			ActiveHours: hb.ActiveHours,
			MaxTokens:   hb.MaxTokens,
		},
	}
}
