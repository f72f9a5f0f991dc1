package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Status names every node, the meta leader, the streams and who owns
// sessions; a node that dies shows down, and without a majority the
// status says the quorum is lost.
func TestStatusSeesNodesComeAndGo(t *testing.T) {
	nodes := startNodes(t, testConfigs(t, 3, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ls, err := nodes[1].Leases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a", "b"} {
		if _, err := ls.Acquire(ctx, SessionLeasePrefix+s); err != nil {
			t.Fatal(err)
		}
	}
	st := nodes[0].Status(ctx)
	if !st.Quorum || st.MetaLeader == "" || len(st.Problems) != 0 {
		t.Fatalf("status: %+v", st)
	}
	if up := upNodes(st); up != "n1 n2 n3" {
		t.Fatalf("up: %q", up)
	}
	if n2 := nodeOf(st, "n2"); n2.Sessions != 2 {
		t.Fatalf("n2 owns %d sessions, want 2", n2.Sessions)
	}
	if len(st.Streams) != 1 || st.Streams[0].Name != "KV_"+leaseBucket || st.Streams[0].Replicas != 3 || st.Streams[0].Leader == "" {
		t.Fatalf("streams: %+v", st.Streams)
	}
	nodes[2].Close()
	deadline := time.Now().Add(20 * time.Second)
	for st = nodes[0].Status(ctx); upNodes(st) != "n1 n2" || !st.Quorum; st = nodes[0].Status(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("after n3 died: %+v", st)
		}
	}
	if len(st.Nodes) != 3 || nodeOf(st, "n3").Up {
		t.Fatalf("n3 is not named down: %+v", st.Nodes)
	}
	nodes[1].Close()
	for st = nodes[0].Status(ctx); st.Quorum; st = nodes[0].Status(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("one node of three still has a quorum: %+v", st)
		}
	}
	if len(st.Problems) == 0 || !strings.Contains(st.Problems[0], "no JetStream quorum") {
		t.Fatalf("problems: %q", st.Problems)
	}
}

func upNodes(st protocol.ClusterStatus) string {
	var up []string
	for _, n := range st.Nodes {
		if n.Up {
			up = append(up, n.Name)
		}
	}
	return strings.Join(up, " ")
}

func nodeOf(st protocol.ClusterStatus, name string) protocol.ClusterNode {
	for _, n := range st.Nodes {
		if n.Name == name {
			return n
		}
	}
	return protocol.ClusterNode{}
}
