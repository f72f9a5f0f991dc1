package daemon

import (
	"context"
	"errors"
	"iter"

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
	if d.cluster != nil { // the tasks are the cluster's; each names the node that runs it
		o.Node, o.Alive = d.cluster.ID(), d.cluster.Alive
		o.CancelElsewhere = func(ctx context.Context, node, id string) error {
			answer, err := d.cluster.Ask(ctx, cancelTaskSubject+node, []byte(id))
			if err == nil && string(answer) != taskCanceled {
				err = errors.New("the task does not run there any more")
			}
			return err
		}
		o.TaskElsewhere = func(ctx context.Context, node, id string) ([]byte, error) {
			return d.cluster.Ask(ctx, liveTaskSubject+node, []byte(id))
		}
		o.SubscribeElsewhere = func(ctx context.Context, node, id string) iter.Seq2[[]byte, error] {
			return d.cluster.Stream(ctx, subscribeTaskSubject+node, []byte(id))
		}
	}
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

// A node asks the node that runs an A2A task, on that node's subject
// (these prefixes and its id), for the task's newest record
// (a2a.Server.LiveTask), to cancel it (a2a.Server.CancelHere) or for its
// events from now on (a stream, a2a.Server.SubscribeHere); the node
// always answers, so a node that is gone is known at once (no
// responders).
const (
	liveTaskSubject      = "beamclaw.a2a.task."
	cancelTaskSubject    = "beamclaw.a2a.cancel."
	subscribeTaskSubject = "beamclaw.a2a.subscribe."
	taskCanceled         = "canceled" // CancelHere took the cancel
)

func exposedOr(agents []string) any {
	if len(agents) == 0 {
		return "all"
	}
	return agents
}
