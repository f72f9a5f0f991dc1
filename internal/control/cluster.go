package control

import (
	"context"
	"net/http"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Cluster is this node's view of its cluster (cluster.Node).
type Cluster interface {
	Status(ctx context.Context) protocol.ClusterStatus
}

// clusterStatus answers beamclaw cluster status; 404 on a daemon that
// runs alone.
func (c *handlers) clusterStatus(w http.ResponseWriter, r *http.Request) {
	if c.cluster == nil {
		writeError(w, http.StatusNotFound, "this daemon runs alone: cluster.enabled is false")
		return
	}
	writeJSON(w, http.StatusOK, c.cluster.Status(r.Context()))
}
