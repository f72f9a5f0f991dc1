package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Enumerations accepted by Validate.
var (
	AutonomyLevels  = []string{"read_only", "supervised", "full"}
	SessionSharings = []string{"shared", "per_channel"}
	TelegramModes   = []string{"long_poll", "webhook"}
	DMPolicies      = []string{"pairing", "allowlist", "open"}
	MCPTransports   = []string{"stdio", "http"}
	MemoryBackends  = []string{"memory", "bbolt"}
	LogFormats      = []string{"text", "json"}
	LogLevels       = []string{"debug", "info", "warn", "error"}
	// Channels that may appear in core.channel_autonomy.
	AutonomyChannels = channelNames()
)

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// Validate checks ranges, enumerations and cross references and reports
// every problem at once (errors.Join of *Error). It needs no environment:
// secrets are checked by ValidateRuntime.
func (c *Config) Validate() error {
	var p problems
	c.validateCore(&p)
	c.validateGateway(&p)
	c.validateTools(&p)
	c.validateMemory(&p)
	c.validateMCP(&p)
	c.validateA2A(&p)
	c.validateSandbox(&p)
	c.validateScheduler(&p)
	p.enum("obs.log.level", c.Obs.Log.Level, LogLevels)
	p.enum("obs.log.format", c.Obs.Log.Format, LogFormats)
	if c.Obs.Log.MaxSizeMB <= 0 {
		p.add("obs.log.max_size_mb", "must be above 0 (fractions are fine: 0.5 is 512 KiB), got %v", c.Obs.Log.MaxSizeMB)
	}
	p.min("obs.log.max_files", c.Obs.Log.MaxFiles, 0)
	p.min("obs.queue_size", c.Obs.QueueSize, 1)
	return p.err()
}

func (c *Config) validateCore(p *problems) {
	k := &c.Core
	for _, name := range sortedKeys(k.Providers) {
		validateProvider(p, "core.providers."+name, name, k.Providers[name])
	}
	p.provider("core.default_provider", k.DefaultProvider, k.Providers, false)
	for i, f := range k.FallbackProviders {
		key := fmt.Sprintf("core.fallback_providers[%d]", i)
		p.provider(key, f, k.Providers, false)
		if f == k.DefaultProvider {
			p.add(key, "%q is already the default provider", f)
		} else if slices.Index(k.FallbackProviders, f) < i {
			p.add(key, "%q is listed twice", f)
		}
	}
	l := k.AgenticLoop
	p.min("core.agentic_loop.max_tool_iterations", l.MaxToolIterations, 1)
	p.min("core.agentic_loop.max_repeated_tool_calls", l.MaxRepeatedToolCalls, 1)
	p.pcts("core.agentic_loop.compaction", l.CompactionThresholdPct, l.CompactionTargetPct)
	p.provider("core.agentic_loop.compaction_provider", l.CompactionProvider, k.Providers, true)
	p.min("core.agentic_loop.stream_chunk_size", l.StreamChunkSize, 1)
	p.min("core.agentic_loop.auto_context_limit", l.AutoContextLimit, 0)
	p.enum("core.autonomy_level", k.AutonomyLevel, AutonomyLevels)
	for _, ch := range sortedKeys(k.ChannelAutonomy) {
		key := "core.channel_autonomy." + ch
		if !slices.Contains(AutonomyChannels, ch) {
			p.add(key, "unknown channel%s; known: %s", suggest(ch, AutonomyChannels), strings.Join(AutonomyChannels, ", "))
		}
		p.enum(key, k.ChannelAutonomy[ch], AutonomyLevels)
	}
	p.min("core.approval_timeout_seconds", k.ApprovalTimeoutSeconds, 1)
	p.min("core.max_live_sessions", k.MaxLiveSessions, 0)
	p.min("core.session_ttl_seconds", k.SessionTTLSeconds, 1)
	p.min("core.session_retention_days", k.SessionRetentionDays, 0)
	p.min("core.session_idle_hibernate_seconds", k.SessionIdleHibernateSeconds, 1)
	p.min("core.session_cleanup_interval_ms", k.SessionCleanupIntervalMs, 1)
	p.name("core.default_agent", k.DefaultAgent)
	p.enum("core.session_sharing", k.SessionSharing, SessionSharings)
	if k.ShutdownTimeout.Duration <= 0 {
		p.add("core.shutdown_timeout", "must be a positive duration")
	}
	for _, name := range sortedKeys(k.Agents) {
		key, a := "core.agents."+name, k.Agents[name]
		p.name(key, name)
		p.provider(key+".provider", a.Provider, k.Providers, true)
		if a.AutonomyLevel != "" {
			p.enum(key+".autonomy_level", a.AutonomyLevel, AutonomyLevels)
		}
	}
	m := k.Maintenance
	p.min("core.maintenance.scan_interval_ms", m.ScanIntervalMs, 1)
	p.min("core.maintenance.idle_compaction_minutes", m.IdleCompactionMinutes, 1)
	p.pcts("core.maintenance.idle_compaction", m.IdleCompactionThresholdPct, m.IdleCompactionTargetPct)
	p.hours("core.maintenance.quiet_hours", m.QuietHours)
	p.min("core.maintenance.nightly_min_messages", m.NightlyMinMessages, 0)
	p.min("core.maintenance.pre_expiry_minutes", m.PreExpiryMinutes, 0)
}

func validateProvider(p *problems, key, name string, pr Provider) {
	p.name(key, name)
	p.httpURL(key+".base_url", pr.BaseURL, true)
	if strings.TrimSpace(pr.Model) == "" {
		p.add(key+".model", "must not be empty")
	}
	p.min(key+".timeout_seconds", pr.TimeoutSeconds, 1)
	p.min(key+".first_token_timeout_seconds", pr.FirstTokenTimeoutSeconds, 1)
	p.between(key+".max_retries", pr.MaxRetries, 0, 10)
	p.min(key+".context_window", pr.ContextWindow, 0)
}

func (p *problems) enum(key, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		p.add(key, "%q is not one of %s", v, strings.Join(allowed, ", "))
	}
}

func (p *problems) min(key string, v, lo int) {
	if v < lo {
		p.add(key, "must be at least %d, got %d", lo, v)
	}
}

func (p *problems) min64(key string, v, lo int64) {
	if v < lo {
		p.add(key, "must be at least %d, got %d", lo, v)
	}
}

func (p *problems) between(key string, v, lo, hi int) {
	if v < lo || v > hi {
		p.add(key, "must be between %d and %d, got %d", lo, hi, v)
	}
}

func (p *problems) name(key, v string) {
	if !nameRE().MatchString(v) {
		p.add(key, "%q is not a valid name (1-64 of A-Z a-z 0-9 _ -)", v)
	}
}

// pcts checks a <prefix>_threshold_pct / <prefix>_target_pct pair.
func (p *problems) pcts(prefix string, threshold, target int) {
	p.between(prefix+"_threshold_pct", threshold, 1, 100)
	p.between(prefix+"_target_pct", target, 1, 100)
	if target >= threshold {
		p.add(prefix+"_target_pct", "must be below %s_threshold_pct (%d), got %d", prefix[strings.LastIndex(prefix, ".")+1:], threshold, target)
	}
}

func (p *problems) hours(key string, r HourRange) {
	if r[0] < 0 || r[0] > 23 || r[1] < 1 || r[1] > 24 || r[0] == r[1] {
		p.add(key, "must be [start, end] UTC hours with start 0-23, end 1-24 and start != end, got [%d, %d]", r[0], r[1])
	}
}

func (p *problems) provider(key, v string, providers map[string]Provider, optional bool) {
	if v == "" && optional {
		return
	}
	if _, ok := providers[v]; !ok {
		p.add(key, "%q is not a configured provider%s", v, suggest(v, sortedKeys(providers)))
	}
}

func (p *problems) httpURL(key, v string, required bool) {
	if v == "" && !required {
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.add(key, "%q is not an http(s) URL", v)
	}
}

func (p *problems) addr(key, v string) (host string, ok bool) {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		p.add(key, "%q is not host:port", v)
		return "", false
	}
	if n, err := parsePort(port); err != nil || n < 0 {
		p.add(key, "port %q must be 0-65535", port)
		return "", false
	}
	return host, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func channelNames() []string {
	out := make([]string, len(beamclaw.Channels))
	for i, c := range beamclaw.Channels {
		out[i] = string(c)
	}
	return out
}
