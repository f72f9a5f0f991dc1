package daemon

import (
	"context"
	"fmt"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// openCluster starts this node's embedded NATS server when
// cluster.enabled (a single node starts none). JetStream waits for a
// quorum of the cluster on its own; until then the cluster check is not
// ready.
func (d *daemon) openCluster() error {
	if d.plan.Cluster == nil {
		return nil
	}
	n, err := cluster.Start(*d.plan.Cluster, d.log)
	if err != nil {
		return err
	}
	d.cluster = n
	d.check("cluster", func() protocol.Subsystem {
		if leader := n.MetaLeader(); leader != "" {
			return protocol.Subsystem{Ready: true, Detail: fmt.Sprintf("node %s, meta leader %s", n.ID(), leader)}
		}
		return protocol.Subsystem{Detail: fmt.Sprintf("node %s: no JetStream quorum yet", n.ID())}
	})
	d.watch.lap("cluster")
	return nil
}

// clusterMetrics registers the node's counters (tree, once the metrics
// exist).
func (d *daemon) clusterMetrics() {
	if d.cluster == nil {
		return
	}
	st := d.cluster.Stats()
	d.metrics.Cluster(st.Forwarded.Load, st.LeaseMoves.Load, st.JournalWrites.Load,
		func() float64 { return float64(st.JournalNanos.Load()) / 1e9 })
}

// clusterServices serve what other nodes send for the sessions this node
// owns: forwarded messages and answers to approvals (cluster mode only).
func (d *daemon) clusterServices(sup *suture.Supervisor, sessions *session.Manager) {
	if d.cluster == nil {
		return
	}
	sup.Add(d.guard(supervise.Func("cluster.forwarded", func(ctx context.Context) error {
		return d.cluster.ServeForwarded(ctx, func(ctx context.Context, in beamclaw.Inbound) (string, error) {
			return sessions.Send(session.Forwarded(ctx), in)
		})
	})))
	sup.Add(d.guard(supervise.Func("cluster.decisions", func(ctx context.Context) error {
		return d.cluster.ServeDecisions(ctx, sessions.DecideHere)
	})))
}

// channelServe is a registered channel's service: on one node of the
// cluster at a time when the channel asks for that (channel.Singleton).
func (d *daemon) channelServe(name beamclaw.Channel, inst channel.Instance) func(context.Context) error {
	if s, ok := inst.(channel.Singleton); ok && s.Singleton() && d.cluster != nil {
		return d.cluster.Singleton("channel."+string(name), inst.Serve)
	}
	return inst.Serve
}
