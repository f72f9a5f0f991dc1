package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// singletonAt names the node that runs the singleton name, as h sees
// the cluster, once it is not the node not ("" for any).
func singletonAt(t *testing.T, h *home, name, not string) string {
	t.Helper()
	var at string
	awaitStatus(t, h, name+" runs on one node", func(st protocol.ClusterStatus) bool {
		at = ""
		for _, n := range st.Nodes {
			for _, s := range n.Singletons {
				if s == name {
					if at != "" {
						t.Fatalf("%s runs on two nodes: %+v", name, st.Nodes)
					}
					at = n.Name
				}
			}
		}
		return at != "" && at != not
	})
	return at
}

// schedCluster starts three nodes with the scheduler on (webhooks to
// sink allowed) and names the node that runs the scheduler.
func schedCluster(t *testing.T, sink *hookSink) ([]*chatRig, string) {
	t.Helper()
	rigs := clusterNodesWith(t, 3, 3, rigOptions{
		extra: fmt.Sprintf("scheduler:\n  enabled: true\n  webhook_allow_hosts: [%q]\n", sink.host())})
	for _, r := range rigs {
		r.start()
	}
	for _, r := range rigs {
		awaitStatus(t, r.h, "every node with a quorum", func(st protocol.ClusterStatus) bool { return st.Quorum && upCount(st) == 3 })
	}
	return rigs, singletonAt(t, rigs[0].h, "scheduler", "")
}

// The scheduler of a cluster runs on one node. A job made on another
// node fires there, once per instant; its runs are seen on every node.
// Killed with -9, that node hands the scheduler on: the job goes on
// firing from the new node, and no instant fires twice or is delivered
// twice. Canceled on a third node, the job fires no more anywhere.
func TestClusterSchedulerMovesAndFiresOnce(t *testing.T) {
	sink := newHookSink(t)
	rigs, holder := schedCluster(t, sink)
	var dead int
	fmt.Sscanf(holder, "n%d", &dead)
	maker, canceler := rigs[dead%3], rigs[(dead+1)%3]
	job := maker.schedJob("--schedule", "every 2s", "--prompt", "tick", "--deliver", "webhook:"+sink.url())
	pollUntil(t, time.Minute, "the job on every node", func() bool {
		for _, r := range rigs {
			if r.h.run("scheduler", "runs", job.ID).code != 0 {
				return false
			}
		}
		return true
	})
	okRuns := func(r *chatRig) []protocol.SchedRun {
		var out []protocol.SchedRun
		for _, run := range r.schedRuns(job.ID) {
			if run.Outcome == "ok" {
				out = append(out, run)
			}
		}
		return out
	}
	pollUntil(t, time.Minute, "two runs before the kill", func() bool { return len(okRuns(maker)) >= 2 })
	time.Sleep(300 * time.Millisecond) // between two runs: not in the middle of one
	killed := time.Now()
	rigs[dead-1].kill9()
	next := singletonAt(t, maker.h, "scheduler", holder)
	t.Logf("the scheduler moved from %s to %s in %s", holder, next, time.Since(killed).Round(time.Millisecond))
	before := len(okRuns(maker))
	pollUntil(t, time.Minute, "two runs after the kill", func() bool { return len(okRuns(maker)) >= before+2 })
	canceler.h.must("scheduler", "cancel", job.ID)
	time.Sleep(3 * time.Second) // an instant after the cancel would fire by now
	runs := okRuns(canceler)
	seen := map[time.Time]bool{}
	for _, run := range runs {
		if seen[run.Due] {
			t.Fatalf("the instant %s fired twice: %+v", run.Due, runs)
		}
		seen[run.Due] = true
	}
	if got := sink.withText("tick"); got != len(runs) {
		t.Fatalf("%d deliveries for %d runs", got, len(runs))
	}
	after := 0
	for _, run := range runs {
		if run.Started.After(killed) {
			after++
		}
	}
	if after < 2 {
		t.Fatalf("%d runs started after the kill: %+v", after, runs)
	}
}

// A scheduled answer for a person's terminal reaches it on whichever node
// it is open, not only on the node that runs the scheduler.
func TestClusterScheduledAnswerReachesTheTerminalElsewhere(t *testing.T) {
	sink := newHookSink(t)
	rigs, holder := schedCluster(t, sink)
	var at int
	fmt.Sscanf(holder, "n%d", &at)
	elsewhere := rigs[at%3]
	conn := elsewhere.localConn("ana")
	j := elsewhere.schedJob("--schedule", "in 1s", "--prompt", "stand up and stretch", "--deliver", "tui", "--user", "local:ana")
	got := waitNotice(t, conn, 30*time.Second)
	if got == nil || got.JobID != j.ID || !strings.Contains(got.Text, "stand up and stretch") {
		t.Fatalf("the terminal on n%d (the scheduler on %s) got %+v", at%3+1, holder, got)
	}
}
