// Package replicatest opens the stores of a test cluster's nodes, each a
// replica of its node's areas (cluster mode), for the tests of packages
// that keep an area.
package replicatest

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/cluster/clustertest"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Stores starts n nodes (clustertest.Start) and opens a store for each,
// closed at the test's end before the nodes stop.
func Stores(t testing.TB, n, replicas int) ([]*cluster.Node, []*store.DB) {
	t.Helper()
	nodes := clustertest.Start(t, n, replicas)
	var dbs []*store.DB
	for i, node := range nodes {
		dbs = append(dbs, Open(t, node, fmt.Sprintf("n%d.db", i+1)))
	}
	return nodes, dbs
}

// Open opens another store (file name) replicating node's areas: a
// second daemon's home on the same node, closed at the test's end.
func Open(t testing.TB, node *cluster.Node, name string) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), name), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db.Replicate(node.State(), nil)
	return db
}

// Within polls ok until it holds, failing t after 15 s: how long a
// change takes to reach the other nodes of a test cluster.
func Within(t testing.TB, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 15 s", what)
		}
	}
}
