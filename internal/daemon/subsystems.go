package daemon

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/a2a"
	"github.com/beamclaw/beamclaw-go/internal/admin"
	"github.com/beamclaw/beamclaw-go/internal/agent"
	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/memory/embedcache"
	"github.com/beamclaw/beamclaw-go/internal/people"
	"github.com/beamclaw/beamclaw-go/internal/procguard"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/scrub"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/internal/tool"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/internal/usage"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// agentRuntime is the agent side of the daemon, built by subsystemsInto.
type agentRuntime struct {
	scrubber *scrub.Scrubber
	agents   *agent.Runtime
	tools    *tool.Registry
	mcp      *mcp.Manager
	tokens   oauth.Store // MCP OAuth logins (sealed in bbolt)
	sessions *session.Manager
	links    *people.Links  // accounts linked into one person
	ledger   *usage.Ledger  // every model call
	budgets  *usage.Budgets // nil without core.budgets on a single node
	// sandbox and its gate are nil unless sandbox.enabled.
	sandbox     *sandbox.Manager
	sandboxGate *sandbox.Gate
	// scheduler and its deliverer are nil unless scheduler.enabled.
	scheduler *scheduler.Scheduler
	deliver   *schedDeliverer
	// a2a is the A2A edge (nil unless it runs).
	a2a *a2a.Server
}

// subsystemsInto builds the agent runtime under root and returns the
// routes it serves publicly and on the control socket.
func (d *daemon) subsystemsInto(root *suture.Supervisor, opts supervise.Options) (routes, control []gateway.Mount, services []suture.Service, err error) {
	p := d.plan
	rt := &agentRuntime{scrubber: scrub.New()}
	for _, v := range p.Secrets {
		rt.scrubber.Add(v)
	}
	provs, err := newProviders(p.Providers, config.ProviderAdapters(), d.log, d.bus)
	if err != nil {
		return nil, nil, nil, err
	}
	d.watch.lap("providers")
	emb, embSvc, err := d.embedder()
	if err != nil {
		return nil, nil, nil, err
	}
	d.watch.lap("embedder")
	ao := p.Agent
	ao.Embedder, ao.DB, ao.Logger = emb, d.db, d.log
	rt.agents = agent.New(ao)
	if d.cluster != nil { // each person's memory and the agents' workspaces are the cluster's (ADR-047, ADR-048)
		if err := rt.agents.Workspaces().Share(d.ctx, d.db, ao.SkillsDir, d.log); err != nil {
			return nil, nil, nil, err
		}
	}
	if rt.links, err = people.Open(d.db, nil, nil); err != nil {
		return nil, nil, nil, err
	}
	if err := rt.agents.Ensure(p.DefaultAgent); err != nil {
		return nil, nil, nil, fmt.Errorf("default agent: %w", err)
	}
	d.watch.lap("agents")
	if rt.tools, err = d.toolRegistry(rt.agents); err != nil {
		return nil, nil, nil, err
	}
	d.watch.lap("tools")
	agentSup := supervise.New("agents", opts)
	agentSup.Add(d.guard(supervise.Func("workspace.watcher", func(ctx context.Context) error {
		if err := rt.agents.WorkspaceWatcher().Serve(ctx); err != nil {
			d.log.Warn("workspace files are checked on every turn", "err", err)
			return supervise.NoRestart(err)
		}
		return nil
	})))
	root.Add(agentSup)
	if embSvc != nil {
		memSup := supervise.New("memory", opts)
		memSup.Add(d.guard(embSvc))
		root.Add(memSup)
	}
	if err := d.mcpInto(root, opts, rt); err != nil {
		return nil, nil, nil, err
	}
	d.watch.lap("mcp")
	if rt.sessions, err = d.sessions(rt, provs); err != nil {
		return nil, nil, nil, err
	}
	if err := rt.tools.Register(builtin.NewToolOutput(rt.sessions)); err != nil { // reads what the sessions kept
		return nil, nil, nil, err
	}
	d.watch.lap("sessions")
	sessSup := supervise.New("sessions", opts)
	sessSup.Add(d.guard(rt.sessions))
	d.clusterServices(sessSup, rt)
	root.Add(sessSup)
	if err := d.sandboxInto(root, opts, rt); err != nil {
		return nil, nil, nil, err
	}
	d.watch.lap("sandbox")
	if err := d.schedulerInto(context.Background(), root, opts, rt); err != nil {
		return nil, nil, nil, err
	}
	d.watch.lap("scheduler")
	d.metrics.LiveSessions(func() int { return rt.sessions.Stats().Live })
	d.check("sessions", func() protocol.Subsystem {
		st := rt.sessions.Stats()
		return protocol.Subsystem{Ready: true, Detail: fmt.Sprintf("%d live, %d hibernated", st.Live, st.Hibernated)}
	})
	return d.edges(rt)
}

// embedder builds the cached embeddings client, or none without a key.
func (d *daemon) embedder() (beamclaw.Embedder, suture.Service, error) {
	ep := d.plan.Embedding
	if ep == nil {
		d.log.Info("memory search without embeddings: keyword (BM25) only", "reason", "no embedding key")
		return nil, nil, nil
	}
	inner, err := openai.NewEmbedder(openai.OptionsOf(ep.Client, d.log), ep.Dimensions)
	if err != nil {
		return nil, nil, fmt.Errorf("embeddings: %w", err)
	}
	cacheOpts := ep.Cache
	cacheOpts.DB = d.db
	cache, err := embedcache.New(inner, cacheOpts)
	if err != nil {
		return nil, nil, err
	}
	return cache, cache, nil
}

// toolRegistry registers the built-in tools (tools.bash.enabled: false
// leaves out both shells, bash and terminal), and a2a_call when a peer in
// a2a.peers has a url. tool_output, which reads the outputs the sessions
// keep, is registered once they exist.
func (d *daemon) toolRegistry(ag *agent.Runtime) (*tool.Registry, error) {
	to := d.plan.Tools.Registry
	to.Logger = d.log
	to.Inline = inlineTools(d.plan.InlineTools)
	reg := tool.New(to)
	bo := d.plan.Tools.Tools
	iso := procguard.NewIsolator()
	if in := iso.Probe(); in.Namespaces {
		d.log.Info("tool processes isolated: user, PID and mount namespaces of their own; they see no other process of the host")
	} else {
		d.log.Warn("tool processes are not isolated from the daemon's other processes", "err", in.Err, "fix", procguard.Fix)
	}
	bo.Process.Isolate = iso.Wrap
	bo.Memory = builtin.MemoryOptions{Workspace: ag.Files(), Search: ag, Notes: ag}
	bo.Skills = builtin.SkillOptions{Reader: ag}
	for _, t := range builtin.Defaults(bo) {
		if !d.plan.Tools.Bash && builtin.IsShell(t.Spec().Def.Name) {
			continue
		}
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	if a := d.plan.A2A; a != nil {
		if t := a2a.NewCallTool(a.Peers, d.log); t != nil {
			if err := reg.Register(t); err != nil {
				return nil, err
			}
		}
	}
	return reg, nil
}

func (d *daemon) mcpInto(root *suture.Supervisor, opts supervise.Options, rt *agentRuntime) error {
	pins, err := store.NewKV(d.db, mcp.PinBucket)
	if err != nil {
		return err
	}
	tokens, err := admin.MCPTokenStore(d.db, d.paths.KeyFile, func(secrets ...string) {
		for _, v := range secrets {
			rt.scrubber.Add(v)
		}
	})
	if err != nil {
		return err
	}
	if err := admin.MCPKeyProblem(d.paths.KeyFile); err != nil {
		d.log.Warn("MCP logins are off: their key file cannot be used", "err", err, "fix", admin.MCPKeyFix(d.paths.KeyFile))
	}
	mo := d.plan.MCP
	mo.Logger, mo.Pins, mo.Tokens, mo.ClientVersion = d.log, pins, tokens, d.opts.Build.Version
	mo.RedirectCheck = admin.MCPRedirectCheck
	mo.Emit = func(ev beamclaw.Event) { d.bus.Emit(context.Background(), ev) }
	m, err := mcp.New(mo)
	if err != nil {
		return err
	}
	rt.mcp, rt.tokens = m, tokens
	rt.tools.AddSource("mcp", m)
	sup := supervise.New("mcp", opts)
	for _, svc := range m.Services() {
		sup.Add(svc) // each server keeps its own restart budget and backoff
	}
	root.Add(sup)
	d.check("mcp", func() protocol.Subsystem {
		ready, failed, login := 0, 0, 0
		st := m.Status()
		for _, s := range st {
			switch s.State {
			case mcp.StateReady:
				ready++
			case mcp.StateFailed:
				failed++
			case mcp.StateNeedsLogin:
				login++
			}
		}
		detail := fmt.Sprintf("%d servers, %d ready, %d failed", len(st), ready, failed)
		if login > 0 {
			detail += fmt.Sprintf(", %d need a login (beamclaw mcp login NAME)", login)
		}
		return protocol.Subsystem{Ready: true, Detail: detail}
	})
	return nil
}

func (d *daemon) sessions(rt *agentRuntime, provs *providers) (*session.Manager, error) {
	p := d.plan
	lo := p.Loop
	if p.Providers.Compaction != "" {
		c, err := provs.chain(p.Providers.Compaction)
		if err != nil {
			return nil, err
		}
		lo.CompactionProvider = c
	}
	highRisk := p.Tools.RemoteHighRisk
	lo.Paging = p.Tools.Paging
	lo.Providers, lo.Tools, lo.Prompt, lo.Window = provs.forAgent, rt.tools, rt.agents.Prompt, provs.window
	lo.Policy = func(spec beamclaw.ToolSpec, a beamclaw.Autonomy, channel beamclaw.Channel) tool.Verdict {
		return tool.Decide(spec, a, channel.Remote(), highRisk)
	}
	lo.Scrub, lo.Emitter, lo.Logger = rt.scrubber, d.bus, d.log
	lo.Workspace = d.paths.AgentDir
	if p.MemoryFlush {
		lo.MemoryFlush = rt.agents.Flush
	}
	ledger, err := usage.New(d.db, p.Rates, d.metrics)
	if err != nil {
		return nil, err
	}
	if d.cluster != nil { // one ledger for the cluster; budgets count every node's calls
		ledger.OfNode(d.cluster.ID())
	}
	if len(p.Budgets) > 0 || d.cluster != nil { // a cluster's node without budgets still sweeps the cluster's holds
		if rt.budgets, err = usage.NewBudgets(ledger, p.Budgets, nil, d.budgetWarning); err != nil {
			return nil, err
		}
	}
	if len(p.Budgets) > 0 {
		lo.Budgets = rt.budgets
	}
	engine, err := loop.New(lo)
	if err != nil {
		return nil, err
	}
	so := p.Sessions
	so.Engine, so.DB, so.Autonomy, so.Emitter, so.Logger = engine, d.db, p.Autonomy.For, d.bus, d.log
	so.Person, so.Ledger, rt.ledger = rt.links.Resolve, ledger, ledger
	if d.cluster != nil {
		so.Cluster, so.Forward = d.cluster, d.cluster.Forward
	}
	return session.New(so)
}

// budgetWarning reports a budget past its warn_percent, or spent under
// action warn (or route_down), as the budget_warning event.
func (d *daemon) budgetWarning(ctx context.Context, msg string, attrs ...slog.Attr) {
	d.bus.Emit(ctx, beamclaw.Event{Name: beamclaw.EventBudgetWarning,
		Attrs: append([]slog.Attr{slog.String("budget", msg)}, attrs...)})
}
