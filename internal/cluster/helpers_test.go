package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
	"github.com/beamclaw/beamclaw-go/test/freeport"
)

const testToken = "a-cluster-token-of-at-least-32-characters"

// freePorts are n loopback ports for the nodes (test/freeport).
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ps, err := freeport.Ports(n)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// testConfigs are the sections of an n-node cluster on loopback.
func testConfigs(t *testing.T, n, replicas int) []Config {
	ports := freePorts(t, 2*n)
	var out []Config
	for i := range n {
		var routes []string
		for j := range n {
			if j != i {
				routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[2*j+1]))
			}
		}
		out = append(out, testConfig(fmt.Sprintf("n%d", i+1), ports[2*i], ports[2*i+1], routes, replicas))
	}
	return out
}

// testConfig is the section of one node of a test cluster.
func testConfig(id string, client, route int, routes []string, replicas int) Config {
	c := DefaultConfig()
	c.Enabled, c.Name, c.NodeID, c.Replicas = true, "test", id, replicas
	c.ClientListen = fmt.Sprintf("127.0.0.1:%d", client)
	c.RouteListen = fmt.Sprintf("127.0.0.1:%d", route)
	c.Token = setting.Env("BEAMCLAW_CLUSTER_TOKEN")
	c.LeaseTTL = setting.Duration{Duration: 2 * time.Second}
	c.Routes = routes
	return c
}

// launchNodes starts every config's node (each its own directory),
// without waiting for anything; they stop at the test's end.
func launchNodes(t *testing.T, cfgs []Config) []*Node {
	t.Helper()
	var nodes []*Node
	for _, c := range cfgs {
		nodes = append(nodes, startNode(t, c, t.TempDir()))
	}
	return nodes
}

// startNode starts c's node with its files in dir, without waiting for
// anything; it stops at the test's end.
func startNode(t *testing.T, c Config, dir string) *Node {
	t.Helper()
	n, err := Start(*c.Options(func(string) string { return testToken }, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// startNodes starts every config's node (each its own directory) and
// waits for JetStream's quorum; they stop at the test's end.
func startNodes(t *testing.T, cfgs []Config) []*Node {
	t.Helper()
	nodes := launchNodes(t, cfgs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, n := range nodes {
		if err := n.Ready(ctx); err != nil {
			t.Fatalf("%s: %v", n.ID(), err)
		}
	}
	return nodes
}
