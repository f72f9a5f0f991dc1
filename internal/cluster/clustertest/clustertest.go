// Package clustertest starts embedded cluster nodes on loopback for the
// tests of packages that store through the cluster.
package clustertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/setting"
	"github.com/beamclaw/beamclaw-go/test/freeport"
)

// Token is the nodes' cluster token.
const Token = "clustertest-token-of-at-least-32-characters"

// Start starts n nodes of one cluster on loopback (R = replicas; n = 1 is
// a cluster of one), each with its own directory, waits for JetStream's
// quorum, and stops them at the test's end.
func Start(t testing.TB, n, replicas int) []*cluster.Node {
	t.Helper()
	ports, err := freeport.Ports(2 * n)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*cluster.Node
	for i := range n {
		c := cluster.DefaultConfig()
		c.Enabled, c.Name, c.NodeID, c.Replicas = true, "test", fmt.Sprintf("n%d", i+1), replicas
		c.ClientListen = fmt.Sprintf("127.0.0.1:%d", ports[2*i])
		c.RouteListen = fmt.Sprintf("127.0.0.1:%d", ports[2*i+1])
		c.LeaseTTL = setting.Duration{Duration: 2 * time.Second}
		c.Routes = []string{}
		for j := range n {
			if j != i {
				c.Routes = append(c.Routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[2*j+1]))
			}
		}
		node, err := cluster.Start(*c.Options(func(string) string { return Token }, t.TempDir()), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(node.Close)
		nodes = append(nodes, node)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, node := range nodes {
		if err := node.Ready(ctx); err != nil {
			t.Fatalf("%s: %v", node.ID(), err)
		}
	}
	return nodes
}
