package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/cluster/clustertest"
)

// BenchmarkAreaUpdate is one write transaction of an area (a job's run
// recorded, say): alone (the group commit), in a cluster of one (R1) and
// through one node of three (R3), on the same machine.
//
//	go test -run '^$' -bench AreaUpdate -benchmem -count 5 ./internal/store/
func BenchmarkAreaUpdate(b *testing.B) {
	for _, c := range []struct{ nodes, replicas int }{{0, 0}, {1, 1}, {3, 3}} {
		name := "alone"
		if c.nodes > 0 {
			name = fmt.Sprintf("R%d", c.replicas)
		}
		b.Run(name, func(b *testing.B) {
			db := openAt(b, filepath.Join(b.TempDir(), "bench.db"))
			if c.nodes > 0 {
				db.Replicate(clustertest.Start(b, c.nodes, c.replicas)[0].State(), nil)
			}
			a, err := db.Area("bench", "jobs")
			if err != nil {
				b.Fatal(err)
			}
			if err := a.Update(increment); err != nil { // the log made, the replica caught up
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := a.Update(increment); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
