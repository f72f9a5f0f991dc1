package daemon

import (
	"maps"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/cluster"

	"github.com/beamclaw/beamclaw-go/internal/a2a"
	"github.com/beamclaw/beamclaw-go/internal/agent"
	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/console"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/memory/embedcache"
	"github.com/beamclaw/beamclaw-go/internal/obs"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// plan is everything the daemon derives from the config: each package's
// Options as plain data, before anything is opened or started. buildPlan
// is a pure function of the config and the environment, so a test can
// prove that every config key reaches it (consumed_test.go); the wiring
// then adds the live parts (store, logger, event bus, registries).
type plan struct {
	Addr            string         // gateway.http.addr
	Log             obs.LogOptions // obs.log
	QueueSize       int            // obs.queue_size
	Metrics         bool           // obs.metrics.enabled: the Prometheus backend and GET /metrics
	ShutdownTimeout time.Duration
	DefaultAgent    string
	CanonicalUser   string   // BEAMCLAW_USER: one user across channels
	Secrets         []string // resolved secret values, for the scrubber

	Providers providerPlan
	Embedding *embeddingPlan // nil: memory search is keyword only
	Agent     agent.Options
	Tools     builtin.Settings // the tools section
	// InlineTools are the agents' core.agents.NAME.inline_tools, by agent.
	InlineTools map[string][]string
	MCP         mcp.Options
	// Sandbox is the code sandbox (the exec tool); nil when
	// sandbox.enabled is false. The wiring adds the install id, the
	// secret values, the bridge's tools, session liveness, the scrubber
	// and the event bus.
	Sandbox *sandbox.Options
	Loop    loop.Options
	// MemoryFlush saves durable facts to the daily log before compaction
	// (core.agentic_loop.memory_flush).
	MemoryFlush bool
	Sessions    session.Options // with Ceilings: core.channel_autonomy
	// Rates is the usage ledger's rate sheet (core.costs.rates); Budgets
	// the limits (core.budgets).
	Rates    usage.Rates
	Budgets  []usage.Budget
	Autonomy autonomies

	Gateway gateway.Options
	// Console is the web console (gateway.console); nil when off.
	Console *console.Settings
	WS      gateway.WSOptions
	TUI     bool // gateway.channels.tui.enabled
	OpenAI  gateway.OpenAIOptions
	// Channels are the registered channels that are on (config.Channels'
	// channel.Section fields), each with its resolved options.
	Channels []channelPlan
	// StreamChunk is how much new text makes a channel edit the answer it
	// shows (core.agentic_loop.stream_chunk_size; channel.Host).
	StreamChunk int
	// A2A is the A2A edge and the a2a_call tool's peers (the a2a
	// section); nil when a2a.enabled is false.
	A2A *a2a.Options
	// Scheduler is scheduled work and heartbeats; nil when
	// scheduler.enabled is false.
	Scheduler *schedPlan
	// Cluster is this node's cluster membership (the cluster section);
	// nil when cluster.enabled is false: no NATS is started.
	Cluster *cluster.Options

	// Warnings are printed at start: keys that do nothing yet.
	Warnings []string
}

// channelPlan is a registered channel to build.
type channelPlan struct {
	Module  channel.Module
	Options any // what the section's Options returned
}

// planChannels lists the registered channels that are on; a channel that
// core.channel_autonomy does not name gets its module's ceiling.
func (p *plan) planChannels(c *config.Config, getenv func(string) string) {
	p.StreamChunk = c.Core.AgenticLoop.StreamChunkSize
	for _, s := range c.Gateway.Channels.Sections() {
		m := s.Module()
		if _, ok := p.Sessions.Ceilings[m.Name]; !ok && m.Autonomy != "" {
			p.Sessions.Ceilings[m.Name] = m.Autonomy
		}
		if s.Enabled() {
			p.Channels = append(p.Channels, channelPlan{Module: m, Options: s.Options(getenv)})
		}
	}
}

// providerPlan is the provider clients and how agents pick them.
type providerPlan struct {
	Clients   map[string]provider.Settings // core.providers, by name
	Default   string                       // core.default_provider
	Fallbacks []string                     // core.fallback_providers
	Agents    map[string]agentChoice       // core.agents.<name>.provider/model
	// Compaction names the provider chain that summarises history
	// (core.agentic_loop.compaction_provider; "" = the agent's own).
	Compaction string
	// Windows are configured context windows by model (a provider's
	// context_window wins over the table of known models).
	Windows map[string]int
}

// agentChoice is an agent's provider, model and fallback providers
// (core.agents.<name>.provider, model, fallback_providers).
type agentChoice struct {
	Provider, Model string
	Fallbacks       []string
}

// embeddingPlan is the /embeddings client and its cache.
type embeddingPlan struct {
	Client     provider.Settings // an OpenAI-compatible /embeddings endpoint
	Dimensions int
	Cache      embedcache.Options
}

// autonomies is each agent's configured autonomy (core.autonomy_level,
// core.agents.<name>.autonomy_level).
type autonomies struct {
	Default  beamclaw.Autonomy
	PerAgent map[string]beamclaw.Autonomy
}

// For is session.Options.Autonomy.
func (a autonomies) For(agentID string) beamclaw.Autonomy {
	if v, ok := a.PerAgent[agentID]; ok {
		return v
	}
	return a.Default
}

// buildPlan turns a validated config into the plan. getenv resolves
// {env: VAR} secrets and BEAMCLAW_USER.
func buildPlan(l config.Loaded, getenv func(string) string) (*plan, error) {
	c := l.Config
	p := &plan{
		Addr: c.Gateway.HTTP.Addr, Log: c.Obs.Log.Options(), QueueSize: c.Obs.QueueSize, Metrics: c.Obs.Metrics.Enabled,
		ShutdownTimeout: c.Core.ShutdownTimeout.Duration, DefaultAgent: c.Core.DefaultAgent,
		CanonicalUser: getenv("BEAMCLAW_USER"), Secrets: c.SecretValues(getenv),
		Warnings: l.Warnings(),
	}
	p.Providers = planProviders(c, getenv)
	p.Warnings = append(p.Warnings, c.ProviderProblems(getenv, l.Paths.AgentNames(c.Core.DefaultAgent))...)
	p.Embedding = planEmbedding(c, getenv)
	p.Agent = planAgent(c, l.Paths)
	p.Tools = c.Tools.Settings(getenv)
	p.InlineTools = map[string][]string{}
	for name, a := range c.Core.Agents {
		if a.InlineTools != nil {
			p.InlineTools[name] = slices.Clone(a.InlineTools)
		}
	}
	mp, err := c.MCP.Options(getenv)
	if err != nil {
		p.Warnings = append(p.Warnings, "MCP servers disabled until their variables are set: "+err.Error())
	}
	p.MCP = mp
	p.Sandbox = planSandbox(c, getenv)
	p.Loop = c.Core.AgenticLoop.Options()
	p.MemoryFlush = c.Core.AgenticLoop.MemoryFlush
	p.Sessions = c.Core.Sessions.Options()
	p.Rates, p.Budgets = c.Core.Usage.Rates(), c.Core.Usage.BudgetList()
	p.Autonomy = planAutonomy(c)
	p.Sessions.Ceilings = make(map[beamclaw.Channel]beamclaw.Autonomy, len(c.Core.ChannelAutonomy))
	for ch, lvl := range c.Core.ChannelAutonomy {
		if a, err := beamclaw.ParseAutonomy(lvl); err == nil {
			p.Sessions.Ceilings[beamclaw.Channel(ch)] = a
		}
	}
	if err := p.planEdges(c, getenv); err != nil {
		return nil, err
	}
	p.planChannels(c, getenv)
	p.planA2A(c, getenv)
	p.Scheduler = planScheduler(c, getenv)
	p.Cluster = c.Cluster.Options(getenv, l.Paths.NATSDir)
	return p, nil
}

// schedPlan is the scheduler's Options and whose heartbeats go where.
type schedPlan struct {
	Options          scheduler.Options
	HeartbeatUser    string // scheduler.heartbeat.user, else BEAMCLAW_USER, else the terminal's local:$USER
	HeartbeatDeliver string // scheduler.heartbeat.deliver
}

func planScheduler(c *config.Config, getenv func(string) string) *schedPlan {
	if !c.Scheduler.Enabled {
		return nil
	}
	hb := c.Scheduler.Heartbeat
	user := hb.User
	if user == "" {
		local := getenv("USER")
		if local == "" {
			local = "user"
		}
		user = session.UserID("local", local, getenv("BEAMCLAW_USER"))
	}
	o := c.Scheduler.Options()
	o.CheckTarget = c.CheckDelivery
	return &schedPlan{Options: o, HeartbeatUser: user, HeartbeatDeliver: hb.Deliver}
}

func planProviders(c *config.Config, getenv func(string) string) providerPlan {
	pp := providerPlan{Clients: make(map[string]provider.Settings, len(c.Core.Providers)),
		Default: c.Core.DefaultProvider, Fallbacks: c.Core.FallbackProviders,
		Agents: make(map[string]agentChoice, len(c.Core.Agents)), Compaction: c.Core.AgenticLoop.CompactionProvider,
		Windows: map[string]int{}}
	for name, pc := range c.Core.Providers {
		pp.Clients[name] = pc.Settings(name, getenv)
		if pc.ContextWindow > 0 {
			pp.Windows[pc.Model] = pc.ContextWindow
		}
	}
	for name, a := range c.Core.Agents {
		pp.Agents[name] = agentChoice{Provider: a.Provider, Model: a.Model, Fallbacks: a.FallbackProviders}
	}
	return pp
}

func planEmbedding(c *config.Config, getenv func(string) string) *embeddingPlan {
	ec := c.Memory.Embedding
	key, ok := ec.APIKey.Resolve(getenv)
	if !ec.Enabled || (!ok && !ec.APIKey.IsZero()) {
		return nil
	}
	return &embeddingPlan{
		Client: provider.Settings{Name: "embeddings", BaseURL: ec.BaseURL, APIKey: key, Model: ec.Model,
			MaxRetries: provider.DefaultMaxRetries},
		Dimensions: ec.Dimensions,
		Cache:      embedcache.Options{Model: ec.Model, TTL: time.Duration(ec.CacheTTLSeconds) * time.Second},
	}
}

func planAgent(c *config.Config, paths config.Paths) agent.Options {
	o := agent.Options{AgentsDir: paths.AgentsDir, SkillsDir: paths.SkillsDir, Memory: c.Memory.Options(),
		AllowFlagged: c.Core.Skills.AllowFlagged}
	if c.Core.AgenticLoop.AutoContext {
		o.AutoContextLimit = c.Core.AgenticLoop.AutoContextLimit
	}
	for _, name := range slices.Sorted(maps.Keys(c.Core.Agents)) {
		if c.Core.Agents[name].MemoryScope == "agent" {
			o.SharedMemory = append(o.SharedMemory, name)
		}
	}
	return o
}

func planSandbox(c *config.Config, getenv func(string) string) *sandbox.Options {
	if !c.Sandbox.Enabled {
		return nil
	}
	o := c.Sandbox.Options()
	o.DockerHost = getenv("DOCKER_HOST")
	return &o
}

func planAutonomy(c *config.Config) autonomies {
	a := autonomies{Default: beamclaw.Supervised, PerAgent: map[string]beamclaw.Autonomy{}}
	if v, err := beamclaw.ParseAutonomy(c.Core.AutonomyLevel); err == nil {
		a.Default = v
	}
	for name, ag := range c.Core.Agents {
		if v, err := beamclaw.ParseAutonomy(ag.AutonomyLevel); ag.AutonomyLevel != "" && err == nil {
			a.PerAgent[name] = v
		}
	}
	return a
}

func (p *plan) planEdges(c *config.Config, getenv func(string) string) error {
	g := c.Gateway
	var err error
	if p.Gateway, err = g.Server.Options(getenv); err != nil {
		return err
	}
	p.WS = g.Server.WSOptions()
	if g.Console.Enabled {
		cs := g.Console.Settings()
		p.Console = &cs
	}
	p.WS.DefaultAgent = c.Core.DefaultAgent
	p.TUI = g.Channels.TUI.Enabled
	p.OpenAI = gateway.OpenAIOptions{DefaultAgent: c.Core.DefaultAgent}
	return nil
}

// inlineTools is the tool registry's Inline: an agent's
// core.agents.NAME.inline_tools ("*" for all), else every tool but
// builtin.DeferredByDefault.
func inlineTools(lists map[string][]string) func(agentID, name string) bool {
	return func(agentID, name string) bool {
		if list, ok := lists[agentID]; ok {
			return slices.Contains(list, "*") || slices.Contains(list, name)
		}
		return !builtin.DeferredByDefault(name)
	}
}
