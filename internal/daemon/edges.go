package daemon

import (
	"fmt"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// edges builds the gateway routes over the runtime, and the services
// (WebSocket hubs, the A2A edge, channels) that must run under the gateway
// supervisor.
func (d *daemon) edges(rt *agentRuntime) (routes, socket []gateway.Mount, services []suture.Service, err error) {
	canonical := d.plan.CanonicalUser
	// BEAMCLAW_USER, when set, is every channel's one user; otherwise a
	// channel's account resolves to its person (the account it is linked
	// to, beamclaw users link), so sessions, memory and approvals follow
	// the person.
	userID := func(prefix, id string) string {
		if canonical != "" {
			return canonical
		}
		return rt.links.Resolve(session.UserID(prefix, id, ""))
	}
	api := rt.sessions
	wsOpts := d.plan.WS
	wsOpts.Sessions, wsOpts.Logger, wsOpts.UserID, wsOpts.KnownAgent = api, d.log, userID, rt.agents.Exists
	wsOpts.Links = rt.links
	wsOpts.Missed = d.missed(rt, scheduler.DeliverWS)
	oo := d.plan.OpenAI
	oo.Sessions, oo.Agents, oo.Logger, oo.UserID = api, rt.agents, d.log, userID
	oo.ToolNames, oo.Scrub = rt.toolNames, rt.scrubber.String
	openai := gateway.NewOpenAI(oo)
	routes = append(routes, openai.Routes()...)
	public := gateway.NewWS(wsOpts)
	for _, m := range public.Routes() {
		m.PublicOnly = true
		routes = append(routes, m)
	}
	localOpts := wsOpts
	localOpts.Local, localOpts.TUIDisabled = true, !d.plan.TUI
	localOpts.Missed = d.missed(rt, scheduler.DeliverTUI)
	local := gateway.NewWS(localOpts)
	socket = append(socket, local.Routes()...)
	services = []suture.Service{public, local, d.events}
	a2aSrv, a2aRoutes, err := d.a2aEdge(rt)
	if err != nil {
		return nil, nil, nil, err
	}
	var tasks control.A2ATasks // nil unless the edge runs
	if a2aSrv != nil {
		rt.a2a = a2aSrv
		services = append(services, a2aSrv)
		routes = append(routes, a2aRoutes...)
		tasks = a2aSrv
	}
	ctlSocket, ctlPublic := d.controlRoutes(rt, tasks)
	socket, routes = append(socket, ctlSocket...), append(routes, ctlPublic...)
	pages, codes, err := d.console(ctlSocket)
	if err != nil {
		return nil, nil, nil, err
	}
	socket, routes = append(socket, codes...), append(routes, pages...)
	registered, err := d.registeredChannels(rt, userID)
	if err != nil {
		return nil, nil, nil, err
	}
	if rt.deliver != nil { // scheduled answers reach these channels
		rt.deliver.tui, rt.deliver.ws = local, public
		rt.deliver.channels = make(map[beamclaw.Channel]channel.Instance, len(registered))
		for _, cp := range d.plan.Channels {
			if cp.Module.Delivers {
				rt.deliver.channels[cp.Module.Name] = registered[cp.Module.Name]
			}
		}
	}
	if len(registered) > 0 {
		// A channel whose upstream keeps failing (Telegram down, a revoked
		// token) stops alone; the daemon and the other channels go on.
		channels := supervise.New("channels", supervise.Options{Logger: d.log, Contain: true,
			Timeout: d.plan.ShutdownTimeout})
		for name, inst := range registered {
			channels.Add(d.guard(supervise.Func("channel."+string(name), d.channelServe(name, inst))))
			for _, r := range inst.Routes() {
				routes = append(routes, gateway.Mount{Method: r.Method, Pattern: r.Pattern, Handler: r.Handler,
					PublicOnly: true, OwnAuth: r.OwnAuth})
			}
		}
		services = append(services, channels)
	}
	return routes, socket, services, nil
}

// registeredChannels builds the registered channels that are on.
func (d *daemon) registeredChannels(rt *agentRuntime, userID func(prefix, id string) string) (map[beamclaw.Channel]channel.Instance, error) {
	out := make(map[beamclaw.Channel]channel.Instance, len(d.plan.Channels))
	for _, cp := range d.plan.Channels {
		inst, err := cp.Module.New(channel.Host{Sessions: rt.sessions, DB: d.db, Logger: d.log.With("channel", string(cp.Module.Name)),
			KnownAgent: rt.agents.Exists, UserID: userID, StreamChunk: d.plan.StreamChunk, Links: rt.links}, cp.Options)
		if err != nil {
			return nil, fmt.Errorf("channel %s: %w", cp.Module.Name, err)
		}
		out[cp.Module.Name] = inst
		health := protocol.Subsystem{Ready: true}
		if dt, ok := inst.(channel.Detailer); ok {
			health.Detail = dt.Detail()
		}
		d.check(string(cp.Module.Name), func() protocol.Subsystem { return health })
	}
	return out, nil
}

// missed hands a hub the scheduled answers kept for a user while none of
// its connections of kind was open (nil without the scheduler).
func (d *daemon) missed(rt *agentRuntime, kind scheduler.DeliveryKind) func(userID string) []protocol.ServerFrame {
	s := rt.scheduler
	if s == nil {
		return nil
	}
	return func(userID string) []protocol.ServerFrame {
		if !s.HasMissed(kind, userID) { // a read: most hellos commit nothing
			return nil
		}
		kept, err := s.TakeMissed(kind, userID)
		if err != nil {
			d.log.Warn("scheduled answers kept for a connection could not be read", "err", err)
			return nil
		}
		out := make([]protocol.ServerFrame, len(kept))
		for i, m := range kept {
			out[i] = protocol.ServerFrame{Type: protocol.FrameNotice, Agent: m.Agent, JobID: m.JobID, Text: m.Text}
		}
		return out
	}
}

// controlRoutes are the control API's routes: on the control socket, and
// as the admin API's public door (/api/v1) only behind a gateway token
// (it is the operator's view of every user).
func (d *daemon) controlRoutes(rt *agentRuntime, tasks control.A2ATasks) (socket, public []gateway.Mount) {
	deps := control.Deps{Sessions: rt.sessions, MCP: rt.mcp, Tokens: rt.tokens,
		Scrub: rt.scrubber.String, DB: d.db, AgentsDir: d.paths.AgentsDir, Log: d.log,
		Sandbox: rt.sandbox, SandboxGate: rt.sandboxGate, Memory: rt.agents, Links: rt.links, Ledger: rt.ledger,
		Workspaces: rt.agents.Workspaces(), Events: d.events, Config: d.show, EditConfig: d.editConfig, Context: d.ctx,
		Skills: rt.agents, DefaultAgent: d.plan.DefaultAgent, Health: d.health, A2A: tasks}
	if rt.scheduler != nil {
		deps.Scheduler = rt.scheduler
	}
	if d.cluster != nil {
		deps.Cluster = d.cluster
	}
	if d.plan.Gateway.Token != "" {
		public = control.APIRoutes(deps)
	}
	return control.Routes(deps), public
}

// toolNames lists the names of an agent's own tools, inline or deferred:
// a client's function may not take one (the OpenAI APIs' tools).
func (rt *agentRuntime) toolNames(agent string) []string { return rt.tools.Names(agent) }
