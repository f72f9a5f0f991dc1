package protocol

// ControlCluster answers GET with ClusterStatus (beamclaw cluster status);
// 404 when the daemon runs alone (cluster.enabled is false).
const ControlCluster = "/control/cluster"

// ClusterStatus is what one node sees of its cluster.
type ClusterStatus struct {
	Name string `json:"name"`
	Node string `json:"node"` // the node that answers
	// MetaLeader is JetStream's meta leader; "" while no quorum.
	MetaLeader string `json:"meta_leader"`
	// Quorum is false when too few nodes are reachable to write anything.
	Quorum   bool            `json:"quorum"`
	Replicas int             `json:"replicas"` // cluster.replicas
	Nodes    []ClusterNode   `json:"nodes"`
	Streams  []ClusterStream `json:"streams"`
	// Problems are what the node could not learn (no quorum, a stream
	// without a leader), in words.
	Problems []string `json:"problems,omitempty"`
}

// ClusterNode is one member as the answering node sees it.
type ClusterNode struct {
	Name string `json:"name"`
	// Up: it answered the status request now.
	Up     bool `json:"up"`
	Leader bool `json:"meta_leader,omitempty"`
	// Sessions are the live sessions it owns (their leases).
	Sessions int `json:"sessions"`
	// Singletons are the cluster-wide services it runs now.
	Singletons []string `json:"singletons,omitempty"`
}

// ClusterStream is one replicated stream or bucket.
type ClusterStream struct {
	Name     string `json:"name"`
	Replicas int    `json:"replicas"`
	Leader   string `json:"leader"`
	// Current is how many of its replicas are caught up (the leader's
	// among them).
	Current  int    `json:"current"`
	Messages uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
}
