package session

import (
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the session keys of config.yaml's core section (inlined there,
// so the keys keep their names: core.session_ttl_seconds...). The package
// owns it: defaults from its constants, Validate, and Options.
type Config struct {
	ApprovalTimeoutSeconds int `yaml:"approval_timeout_seconds"`
	// ApprovalCrossChannel lets the same user answer an approval from
	// another channel than the one it was asked on (never the HTTP API).
	ApprovalCrossChannel        bool `yaml:"approval_cross_channel"`
	SessionTTLSeconds           int  `yaml:"session_ttl_seconds"`
	SessionRetentionDays        int  `yaml:"session_retention_days"`
	SessionIdleHibernateSeconds int  `yaml:"session_idle_hibernate_seconds"`
	// MaxLiveSessions caps the sessions kept in memory; past it the least
	// recently used idle one hibernates at once (0 = no cap).
	MaxLiveSessions          int               `yaml:"max_live_sessions"`
	SessionCleanupIntervalMs int               `yaml:"session_cleanup_interval_ms"`
	SessionPersistence       bool              `yaml:"session_persistence"`
	SessionSharing           string            `yaml:"session_sharing"`
	Maintenance              MaintenanceConfig `yaml:"maintenance"`
}

// MaintenanceConfig is core.maintenance: the opt-in proactive upkeep
// (idle compaction, nightly compaction, flush before expiry).
type MaintenanceConfig struct {
	Enabled                    bool              `yaml:"enabled"`
	ScanIntervalMs             int               `yaml:"scan_interval_ms"`
	IdleCompactionMinutes      int               `yaml:"idle_compaction_minutes"`
	IdleCompactionThresholdPct int               `yaml:"idle_compaction_threshold_pct"`
	IdleCompactionTargetPct    int               `yaml:"idle_compaction_target_pct"`
	QuietHours                 setting.HourRange `yaml:"quiet_hours"`
	NightlyMinMessages         int               `yaml:"nightly_min_messages"`
	PreExpiryMinutes           int               `yaml:"pre_expiry_minutes"`
}

// Session sharing modes (core.session_sharing).
const (
	SharingShared     = "shared"      // one session per user and agent, across channels
	SharingPerChannel = "per_channel" // one per channel as well
)

// Sharings are the values core.session_sharing takes.
var Sharings = []string{SharingShared, SharingPerChannel}

// Defaults of core.maintenance when it is switched on.
const (
	DefaultMaintenanceScan    = 5 * time.Minute
	DefaultIdleCompactAfter   = 15 * time.Minute
	DefaultIdleThresholdPct   = 20
	DefaultIdleTargetPct      = 10
	DefaultNightlyMinMessages = 10
	DefaultPreExpiry          = 10 * time.Minute
)

// DefaultQuietHours is when the nightly pass runs: [02:00, 04:00) UTC.
var DefaultQuietHours = setting.HourRange{2, 4}

// DefaultConfig is the section when the file says nothing.
func DefaultConfig() Config {
	return Config{
		ApprovalTimeoutSeconds:      int(DefaultApprovalTimeout / time.Second),
		SessionTTLSeconds:           int(DefaultTTL / time.Second),
		SessionIdleHibernateSeconds: int(DefaultIdleHibernate / time.Second),
		MaxLiveSessions:             DefaultMaxLive,
		SessionCleanupIntervalMs:    int(DefaultCleanupInterval / time.Millisecond),
		SessionPersistence:          true,
		SessionSharing:              SharingShared,
		Maintenance: MaintenanceConfig{
			ScanIntervalMs:             int(DefaultMaintenanceScan / time.Millisecond),
			IdleCompactionMinutes:      int(DefaultIdleCompactAfter / time.Minute),
			IdleCompactionThresholdPct: DefaultIdleThresholdPct,
			IdleCompactionTargetPct:    DefaultIdleTargetPct,
			QuietHours:                 DefaultQuietHours,
			NightlyMinMessages:         DefaultNightlyMinMessages,
			PreExpiryMinutes:           int(DefaultPreExpiry / time.Minute),
		},
	}
}

// Validate records every problem of the session keys under p (the core
// section).
func (c Config) Validate(p *setting.Problems) {
	p.Min("approval_timeout_seconds", c.ApprovalTimeoutSeconds, 1)
	p.Min("max_live_sessions", c.MaxLiveSessions, 0)
	p.Min("session_ttl_seconds", c.SessionTTLSeconds, 1)
	p.Min("session_retention_days", c.SessionRetentionDays, 0)
	p.Min("session_idle_hibernate_seconds", c.SessionIdleHibernateSeconds, 1)
	p.Min("session_cleanup_interval_ms", c.SessionCleanupIntervalMs, 1)
	p.Enum("session_sharing", c.SessionSharing, Sharings)
	m, mp := c.Maintenance, p.Under("maintenance")
	mp.Min("scan_interval_ms", m.ScanIntervalMs, 1)
	mp.Min("idle_compaction_minutes", m.IdleCompactionMinutes, 1)
	mp.Pcts("idle_compaction", m.IdleCompactionThresholdPct, m.IdleCompactionTargetPct)
	mp.Hours("quiet_hours", m.QuietHours)
	mp.Min("nightly_min_messages", m.NightlyMinMessages, 0)
	mp.Min("pre_expiry_minutes", m.PreExpiryMinutes, 0)
}

// Options is the section as the Manager's Options; the wiring adds the
// engine, the store, autonomy, ceilings, events, logger and clock.
func (c Config) Options() Options {
	return Options{
		Persist:               c.SessionPersistence,
		PerChannel:            c.SessionSharing == SharingPerChannel,
		IdleHibernate:         time.Duration(c.SessionIdleHibernateSeconds) * time.Second,
		MaxLive:               c.MaxLiveSessions,
		TTL:                   time.Duration(c.SessionTTLSeconds) * time.Second,
		Retention:             time.Duration(c.SessionRetentionDays) * 24 * time.Hour,
		CleanupInterval:       time.Duration(c.SessionCleanupIntervalMs) * time.Millisecond,
		ApprovalTimeout:       time.Duration(c.ApprovalTimeoutSeconds) * time.Second,
		CrossChannelApprovals: c.ApprovalCrossChannel,
		Maintenance:           c.Maintenance.options(),
	}
}

// options is core.maintenance; the zero value (no Scan) when off.
func (m MaintenanceConfig) options() MaintenanceOptions {
	if !m.Enabled {
		return MaintenanceOptions{}
	}
	return MaintenanceOptions{
		Scan:               time.Duration(m.ScanIntervalMs) * time.Millisecond,
		IdleAfter:          time.Duration(m.IdleCompactionMinutes) * time.Minute,
		IdleThresholdPct:   m.IdleCompactionThresholdPct,
		IdleTargetPct:      m.IdleCompactionTargetPct,
		QuietHours:         m.QuietHours,
		NightlyMinMessages: m.NightlyMinMessages,
		PreExpiry:          time.Duration(m.PreExpiryMinutes) * time.Minute,
	}
}
