package daemon

import (
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/cluster"
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
