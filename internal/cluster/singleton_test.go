package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// A singleton runs on one node at a time, and moves to another node when
// its node dies.
func TestSingletonRunsOnceAndMoves(t *testing.T) {
	nodes := startNodes(t, testConfigs(t, 3, 3))
	var running, most atomic.Int32
	where := make(chan string, 16)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = n.Singleton("sweeper", func(ctx context.Context) error {
				if r := running.Add(1); r > most.Load() {
					most.Store(r)
				}
				where <- n.ID()
				<-ctx.Done()
				running.Add(-1)
				return nil
			})(ctx)
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	first := <-where
	time.Sleep(3 * nodes[0].cfg.LeaseTTL) // long enough for a second runner to start, if one could
	if most.Load() != 1 {
		t.Fatalf("%d runners at once", most.Load())
	}
	if st := nodes[0].Status(context.Background()); len(singletonsOf(st.Nodes)) != 1 || singletonsOf(st.Nodes)[first] != "sweeper" {
		t.Fatalf("status names %v, want sweeper on %s", singletonsOf(st.Nodes), first)
	}
	for _, n := range nodes {
		if n.ID() == first {
			n.Close() // dies: its lease expires, it stops, another node starts
		}
	}
	select {
	case next := <-where:
		if next == first {
			t.Fatalf("the singleton came back on the dead node %s", next)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the singleton did not move")
	}
	if most.Load() != 1 {
		t.Fatalf("%d runners at once", most.Load())
	}
}

func singletonsOf(nodes []protocol.ClusterNode) map[string]string {
	out := map[string]string{}
	for _, n := range nodes {
		for _, s := range n.Singletons {
			out[n.Name] = s
		}
	}
	return out
}
