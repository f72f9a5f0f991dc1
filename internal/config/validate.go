package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// Enumerations accepted by Validate.
var (
	AutonomyLevels = []string{"read_only", "supervised", "full"}
	// Channels that may appear in core.channel_autonomy (with the
	// registered channels, autonomyChannels).
)

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// Validate checks ranges, enumerations and cross references and reports
// every problem at once (errors.Join of *Error). It needs no environment:
// secrets are checked by ValidateRuntime.
func (c *Config) Validate() error {
	var p problems
	c.validateCore(&p)
	c.validateGateway(&p)
	c.Tools.Validate(p.Under("tools"))
	c.Memory.Validate(p.Under("memory"))
	c.MCP.Validate(p.Under("mcp"))
	c.A2A.Validate(p.Under("a2a"))
	c.Sandbox.Validate(p.Under("sandbox"))
	if d, err := scheduler.ParseDelivery(c.Scheduler.Heartbeat.Deliver); err == nil {
		if err := c.CheckDelivery(d); err != nil {
			p.Add("scheduler.heartbeat.deliver", "%s", err.Error())
		}
	}
	c.Scheduler.Validate(p.Under("scheduler"))
	c.Obs.Validate(p.Under("obs"))
	c.Cluster.Validate(p.Under("cluster"))
	return p.Err()
}

func (c *Config) validateCore(p *problems) {
	k := &c.Core
	adapters := ProviderAdapters()
	for _, name := range sortedKeys(k.Providers) {
		p.name("core.providers."+name, name)
		k.Providers[name].Validate(p.Under("core.providers."+name), adapters)
	}
	p.provider("core.default_provider", k.DefaultProvider, k.Providers, false)
	for i, f := range k.FallbackProviders {
		key := fmt.Sprintf("core.fallback_providers[%d]", i)
		p.provider(key, f, k.Providers, false)
		if f == k.DefaultProvider {
			p.Add(key, "%q is already the default provider", f)
		} else if slices.Index(k.FallbackProviders, f) < i {
			p.Add(key, "%q is listed twice", f)
		}
	}
	k.AgenticLoop.Validate(p.Under("core.agentic_loop"))
	p.provider("core.agentic_loop.compaction_provider", k.AgenticLoop.CompactionProvider, k.Providers, true)
	p.Enum("core.autonomy_level", k.AutonomyLevel, AutonomyLevels)
	known := c.autonomyChannels()
	for _, ch := range sortedKeys(k.ChannelAutonomy) {
		key := "core.channel_autonomy." + ch
		if !slices.Contains(known, ch) {
			p.Add(key, "unknown channel%s; known: %s", suggest(ch, known), strings.Join(known, ", "))
		}
		p.Enum(key, k.ChannelAutonomy[ch], AutonomyLevels)
	}
	k.Sessions.Validate(p.Under("core"))
	k.Usage.Validate(p.Under("core"))
	p.name("core.default_agent", k.DefaultAgent)
	if k.ShutdownTimeout.Duration <= 0 {
		p.Add("core.shutdown_timeout", "must be a positive duration")
	}
	for _, name := range sortedKeys(k.Agents) {
		key, a := "core.agents."+name, k.Agents[name]
		p.name(key, name)
		p.provider(key+".provider", a.Provider, k.Providers, true)
		if a.AutonomyLevel != "" {
			p.Enum(key+".autonomy_level", a.AutonomyLevel, AutonomyLevels)
		}
		if a.MemoryScope != "" {
			p.Enum(key+".memory_scope", a.MemoryScope, MemoryScopes)
		}
		for i, n := range a.InlineTools {
			if n != "*" && !tool.ValidName(n) {
				p.Add(fmt.Sprintf("%s.inline_tools[%d]", key, i), fmt.Sprintf("%q is not a tool name (1-64 of A-Z a-z 0-9 _ . -) or *", n))
			}
		}
		for i, f := range a.FallbackProviders {
			p.provider(fmt.Sprintf("%s.fallback_providers[%d]", key, i), f, k.Providers, false)
		}
	}
}

func (p *problems) name(key, v string) {
	if !nameRE().MatchString(v) {
		p.Add(key, "%q is not a valid name (1-64 of A-Z a-z 0-9 _ -)", v)
	}
}

func (p *problems) provider(key, v string, providers map[string]provider.Config, optional bool) {
	if v == "" && optional {
		return
	}
	if _, ok := providers[v]; !ok {
		p.Add(key, "%q is not a configured provider%s", v, suggest(v, sortedKeys(providers)))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// autonomyChannels are the channels core.channel_autonomy may name: the
// built-in ones and the registered ones.
func (c *Config) autonomyChannels() []string {
	out := make([]string, 0, len(beamclaw.Channels))
	for _, ch := range beamclaw.Channels {
		out = append(out, string(ch))
	}
	for _, s := range c.Gateway.Channels.Sections() {
		out = append(out, string(s.Module().Name))
	}
	return out
}
