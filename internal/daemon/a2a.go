package daemon

import (
	"github.com/beamclaw/beamclaw-go/internal/a2a"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
)

// planA2A turns the a2a section into the edge's Options (nil when A2A is
// off); the peers are also the a2a_call tool's.
func (p *plan) planA2A(c *config.Config, getenv func(string) string) {
	if p.A2A = c.A2A.Options(getenv); p.A2A != nil {
		p.A2A.GatewayToken, p.A2A.DefaultAgent = p.Gateway.Token, c.Core.DefaultAgent
	}
}

// a2aEdge builds the A2A server over the runtime: its routes (each
// authenticating itself, public listener only) and its service. Without a
// token to check it stays off, and says why.
func (d *daemon) a2aEdge(rt *agentRuntime) (*a2a.Server, []gateway.Mount, error) {
	if d.plan.A2A == nil {
		return nil, nil, nil
	}
	o := *d.plan.A2A
	if why := o.Closed(); why != "" {
		d.log.Warn("a2a: /a2a and the agent cards are off", "reason", why)
		return nil, nil, nil
	}
	o.Sessions, o.Agents, o.DB = rt.sessions, rt.agents, d.db
	o.Emitter, o.Logger, o.Version = d.bus, d.log, d.opts.Build.Version
	srv, err := a2a.New(o)
	if err != nil {
		return nil, nil, err
	}
	var mounts []gateway.Mount
	for _, r := range srv.Routes() {
		mounts = append(mounts, gateway.Mount{Method: r.Method, Pattern: r.Pattern, Handler: r.Handler,
			OwnAuth: true, PublicOnly: true})
	}
	d.log.Info("a2a: serving /a2a and the agent cards", "agents", exposedOr(o.Exposed), "peers", len(o.Peers))
	return srv, mounts, nil
}

func exposedOr(agents []string) any {
	if len(agents) == 0 {
		return "all"
	}
	return agents
}
