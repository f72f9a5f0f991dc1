package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/memory/embedcache"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
	"github.com/beamclaw/beamclaw-go/internal/scrub"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/internal/tool"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// agentRuntime is the agent side of the daemon, built by subsystemsInto.
type agentRuntime struct {
	scrubber *scrub.Scrubber
	agents   *agents
	tools    *tool.Registry
	mcp      *mcp.Manager
	sessions *session.Manager
	api      *sessionsAPI
}

// subsystemsInto builds the agent runtime under root and returns the
// routes it serves publicly and on the control socket.
func (d *daemon) subsystemsInto(root *suture.Supervisor, opts supervise.Options) (routes, control []gateway.Mount, services []suture.Service, err error) {
	rt := &agentRuntime{scrubber: scrub.New()}
	for _, v := range d.cfg.SecretValues(d.env.getenv) {
		rt.scrubber.Add(v)
	}
	provs, err := newProviders(d.cfg, d.env.getenv, d.log)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := provs.warm(); err != nil {
		return nil, nil, nil, err
	}
	emb, embSvc, err := d.embedder()
	if err != nil {
		return nil, nil, nil, err
	}
	rt.agents = newAgents(d.cfg, d.paths, d.db, emb, d.log)
	if err := rt.agents.ws.Ensure(d.cfg.Core.DefaultAgent); err != nil {
		return nil, nil, nil, fmt.Errorf("default agent: %w", err)
	}
	if rt.tools, err = d.toolRegistry(rt.agents); err != nil {
		return nil, nil, nil, err
	}
	if embSvc != nil {
		memSup := supervise.New("memory", opts)
		memSup.Add(d.guard(embSvc))
		root.Add(memSup)
	}

	if err := d.mcpInto(root, opts, rt); err != nil {
		return nil, nil, nil, err
	}
	if rt.sessions, err = d.sessions(rt, provs); err != nil {
		return nil, nil, nil, err
	}
	sessSup := supervise.New("sessions", opts)
	sessSup.Add(d.guard(rt.sessions))
	root.Add(sessSup)
	d.check("sessions", func() protocol.Subsystem {
		st := rt.sessions.Stats()
		return protocol.Subsystem{Ready: true, Detail: fmt.Sprintf("%d live, %d hibernated", st.Live, st.Hibernated)}
	})
	return d.edges(rt)
}

// embedder builds the cached embeddings client, or none without a key.
func (d *daemon) embedder() (beamclaw.Embedder, suture.Service, error) {
	ec := d.cfg.Memory.Embedding
	key, ok := ec.APIKey.Resolve(d.env.getenv)
	if !ec.Enabled || (!ok && !ec.APIKey.IsZero()) {
		d.log.Info("memory search without embeddings: keyword (BM25) only", "reason", "no embedding key")
		return nil, nil, nil
	}
	inner, err := openai.NewEmbedder(openai.Options{Name: "embeddings", BaseURL: ec.BaseURL, APIKey: key,
		Model: ec.Model, Logger: d.log}, ec.Dimensions)
	if err != nil {
		return nil, nil, fmt.Errorf("embeddings: %w", err)
	}
	cache, err := embedcache.New(inner, embedcache.Options{Model: ec.Model,
		TTL: time.Duration(ec.CacheTTLSeconds) * time.Second, DB: d.db})
	if err != nil {
		return nil, nil, err
	}
	return cache, cache, nil
}

func (d *daemon) toolRegistry(ag *agents) (*tool.Registry, error) {
	tc := d.cfg.Tools
	reg := tool.New(tool.Options{Timeout: time.Duration(tc.TimeoutSeconds) * time.Second,
		MaxOutputBytes: tc.MaxOutputBytes, Logger: d.log})
	key, _ := tc.WebSearch.APIKey.Resolve(d.env.getenv)
	all := builtin.Defaults(builtin.Options{
		Files: builtin.FileOptions{Roots: tc.FileRoots},
		Curl:  builtin.CurlOptions{AllowPrivate: tc.Curl.AllowPrivate, MaxResponseBytes: tc.Curl.MaxResponseBytes},
		WebSearch: builtin.WebSearchOptions{APIKey: key, BaseURL: tc.WebSearch.BaseURL,
			MaxResults: tc.WebSearch.MaxResults},
		Memory: builtin.MemoryOptions{Workspace: workspaceFiles{ag.ws}, Search: ag, Notes: ag},
		Skills: builtin.SkillOptions{Reader: ag},
	})
	for _, t := range all {
		if !tc.Bash.Enabled && t.Spec().Def.Name == "bash" {
			continue
		}
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

func (d *daemon) mcpInto(root *suture.Supervisor, opts supervise.Options, rt *agentRuntime) error {
	servers, err := mcpServers(d.cfg, d.env.getenv)
	if err != nil {
		d.log.Warn("MCP servers disabled until their variables are set", "err", err)
	}
	pins, err := store.NewKV(d.db, "mcp_pins")
	if err != nil {
		return err
	}
	m, err := mcp.New(mcp.Options{
		Servers: servers, ProtocolVersion: d.cfg.MCP.ProtocolVersion, MaxInlineTools: d.cfg.MCP.MaxInlineTools,
		Restart: mcp.RestartPolicy{MaxRestarts: d.cfg.MCP.MaxRestarts,
			Window: time.Duration(d.cfg.MCP.RestartWindowSeconds) * time.Second},
		Logger:  d.log,
		Emit:    func(ev beamclaw.Event) { d.bus.Emit(context.Background(), ev) },
		Metrics: mcpMetrics{d.bus},
		Pins:    pins,
	})
	if err != nil {
		return err
	}
	rt.mcp = m
	rt.tools.AddSource("mcp", m)
	sup := supervise.New("mcp", opts)
	for _, svc := range m.Services() {
		sup.Add(svc) // each server keeps its own restart budget and backoff
	}
	root.Add(sup)
	d.check("mcp", func() protocol.Subsystem {
		ready, failed := 0, 0
		st := m.Status()
		for _, s := range st {
			switch s.State {
			case mcp.StateReady:
				ready++
			case mcp.StateFailed:
				failed++
			}
		}
		return protocol.Subsystem{Ready: true, Detail: fmt.Sprintf("%d servers, %d ready, %d failed", len(st), ready, failed)}
	})
	return nil
}

func (d *daemon) sessions(rt *agentRuntime, provs *providers) (*session.Manager, error) {
	al := d.cfg.Core.AgenticLoop
	var compaction beamclaw.Provider
	if al.CompactionProvider != "" {
		p, err := provs.chain(al.CompactionProvider)
		if err != nil {
			return nil, err
		}
		compaction = p
	}
	highRisk := d.cfg.Tools.RemoteHighRisk
	engine, err := loop.New(loop.Options{
		Providers: provs.forAgent,
		Tools:     rt.tools,
		Policy: func(spec beamclaw.ToolSpec, a beamclaw.Autonomy, channel beamclaw.Channel) tool.Verdict {
			return tool.Decide(spec, a, channel.Remote(), highRisk)
		},
		Prompt:                 rt.agents.prompt,
		Window:                 provs.window,
		Scrub:                  rt.scrubber,
		Emitter:                d.bus,
		Logger:                 d.log,
		Workspace:              func(agentID string) string { return d.paths.AgentDir(agentID) },
		MemoryFlush:            memoryFlush(al.MemoryFlush, rt.agents),
		CompactionProvider:     compaction,
		CompactionModel:        al.CompactionModel,
		MaxToolIterations:      al.MaxToolIterations,
		MaxRepeatedToolCalls:   al.MaxRepeatedToolCalls,
		CompactionThresholdPct: al.CompactionThresholdPct,
		CompactionTargetPct:    al.CompactionTargetPct,
		StreamChunkSize:        al.StreamChunkSize,
	})
	if err != nil {
		return nil, err
	}
	c := d.cfg.Core
	return session.New(session.Options{
		Engine:          engine,
		Persist:         c.SessionPersistence,
		DB:              d.db,
		PerChannel:      c.SessionSharing == "per_channel",
		Autonomy:        agentAutonomy(d.cfg),
		IdleHibernate:   time.Duration(c.SessionIdleHibernateSeconds) * time.Second,
		TTL:             time.Duration(c.SessionTTLSeconds) * time.Second,
		CleanupInterval: time.Duration(c.SessionCleanupIntervalMs) * time.Millisecond,
		ApprovalTimeout: time.Duration(c.ApprovalTimeoutSeconds) * time.Second,
		Emitter:         d.bus,
		Logger:          d.log,
	})
}

func memoryFlush(on bool, ag *agents) func(context.Context, string, string) error {
	if !on {
		return nil
	}
	return ag.flush
}
