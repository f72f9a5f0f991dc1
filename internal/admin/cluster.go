package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ClusterStatus is the running daemon's view of its cluster.
func (a *Admin) ClusterStatus(ctx context.Context) (protocol.ClusterStatus, error) {
	paths, err := a.paths()
	if err != nil {
		return protocol.ClusterStatus{}, err
	}
	var out protocol.ClusterStatus
	ok, err := controlDo(ctx, paths.Socket, http.MethodGet, protocol.ControlCluster, nil, &out)
	if !ok {
		return out, fmt.Errorf("%w: start it with beamclaw start", client.ErrNoDaemon)
	}
	if ce, is := errors.AsType[*client.Error](err); is && ce.Status == http.StatusNotFound {
		return out, errors.New("this daemon runs alone: cluster.enabled is false")
	}
	return out, err
}

// clusterCheck is doctor's line on the cluster: its quorum as the
// running node sees it (none runs: nothing to ask).
func (a *Admin) clusterCheck(ctx context.Context, daemonUp bool) protocol.Check {
	if !daemonUp {
		return ok("cluster", "enabled; no daemon runs here to ask (beamclaw start)")
	}
	st, err := a.ClusterStatus(ctx)
	switch {
	case err != nil:
		return fail("cluster", err.Error(), "see the daemon's log")
	case !st.Quorum:
		return fail("cluster", strings.Join(st.Problems, "; "),
			"start the nodes that are down, or check the routes between them (beamclaw cluster status)")
	}
	up := 0
	for _, n := range st.Nodes {
		if n.Up {
			up++
		}
	}
	detail := fmt.Sprintf("node %s of cluster %s: %d of %d nodes up, meta leader %s", st.Node, st.Name, up, len(st.Nodes), st.MetaLeader)
	if len(st.Problems) > 0 {
		return warn("cluster", detail+"; "+strings.Join(st.Problems, "; "), "beamclaw cluster status")
	}
	return ok("cluster", detail)
}
