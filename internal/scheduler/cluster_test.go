package scheduler

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/cluster/clustertest"
)

// TestJobFiresOnceAcrossNodes: three nodes share the jobs (cluster mode)
// and, as in a split brain, all three run their timers at once. A job
// made on one node fires on one node at each instant, never twice, and
// the runs are seen on every node. Canceled on one node, it fires no
// more anywhere.
func TestJobFiresOnceAcrossNodes(t *testing.T) {
	nodes := clustertest.Start(t, 3, 3)
	clk := clock.NewFake(t0)
	turns := newFakeTurns()
	var envs []*env
	for _, n := range nodes {
		e := newEnvAt(t, t0, func(o *Options) {
			o.DB.Replicate(n.State(), nil)
			o.Clock, o.Turns = clk, turns
		})
		e.start()
		envs = append(envs, e)
	}
	j := envs[2].add(AddRequest{Schedule: "every 1m"})
	for i, e := range envs {
		eventually(t, "the job on every node", func() bool {
			_, err := e.s.Get(context.Background(), j.ID)
			return err == nil
		}, i)
	}
	const instants = 5
	for k := 1; k <= instants; k++ {
		clk.Advance(time.Minute)
		eventually(t, "a run of the instant", func() bool { return len(turns.dues(j.ID)) >= k }, k)
		eventually(t, "the run's end on every node", func() bool {
			for _, e := range envs {
				if rs := e.runs(j.ID); len(rs) < k || rs[0].Outcome != OutcomeOK {
					return false
				}
			}
			return true
		}, k)
	}
	time.Sleep(300 * time.Millisecond) // a second firing would have come by now
	dues := turns.dues(j.ID)
	if len(dues) != instants || len(slices.Compact(slices.Clone(dues))) != instants {
		t.Fatalf("the job ran at %v; want %d instants, each once", dues, instants)
	}
	if _, err := envs[1].s.Cancel(context.Background(), j.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the cancel on every node", func() bool {
		for _, e := range envs {
			if e.job(j.ID).State != StateDone {
				return false
			}
		}
		return true
	}, 0)
	clk.Advance(time.Minute)
	time.Sleep(300 * time.Millisecond)
	if got := len(turns.dues(j.ID)); got != instants {
		t.Fatalf("the canceled job ran again: %d runs", got)
	}
}

func eventually(t *testing.T, what string, ok func() bool, k int) {
	t.Helper()
	for deadline := time.Now().Add(patience); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (%d): not within %s", what, k, patience)
		}
	}
}
