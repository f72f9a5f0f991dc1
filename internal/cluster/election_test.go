package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// nodeEnv holds, in a child of the test binary, the config and home of
// the node it runs (procNode).
const nodeEnv = "BEAMCLAW_TEST_CLUSTER_NODE"

type procSpec struct {
	Config Config
	Dir    string
}

// runProcNode runs the node nodeEnv names until the process is killed.
func runProcNode(spec string) {
	var s procSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, err := Start(*s.Config.Options(func(string) string { return testToken }, s.Dir), nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("ready")
	select {}
}

// procNode runs c's node in a process of its own, so that kill -9 kills
// it as it kills a daemon: its routes drop and the streams it led wait
// out an election (a node closed in this process hands them over first).
// The returned func kills it.
func procNode(t *testing.T, c Config) (kill9 func()) {
	t.Helper()
	spec, err := json.Marshal(procSpec{Config: c, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), nodeEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	t.Cleanup(kill)
	if line, _ := bufio.NewReader(out).ReadString('\n'); strings.TrimSpace(line) != "ready" {
		t.Fatalf("node %s in its own process said %q", c.NodeID, line)
	}
	return func() { kill(); t.Logf("%s killed with -9", c.NodeID) }
}

// leadTo makes node the leader of stream (a step down that prefers it).
func leadTo(ctx context.Context, t *testing.T, n *Node, stream, node string) {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"placement": map[string]any{"preferred": node}})
	for {
		s, err := n.js.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err == nil && info.Cluster != nil && info.Cluster.Leader == node {
			return
		}
		if _, err := n.nc.RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, req); err != nil && ctx.Err() != nil {
			t.Fatalf("%s never led %s: %v", node, stream, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A lease and a bucket asked for while their stream's leader is dead
// (killed with -9: nothing answers the stream until the others elected
// a new leader, 1.5 s at least) are answered once one is elected, not
// refused with the leaderless stream's "no response": a session whose
// node died is taken over on the next message, without a 503 between.
func TestLeasesAndBucketsWaitOutAnElection(t *testing.T) {
	cfgs := testConfigs(t, 3, 3)
	kill9 := procNode(t, cfgs[0])
	nodes := startNodes(t, cfgs[1:])
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ls, err := nodes[0].Leases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := nodes[0].Bucket(ctx, "election")
	if err != nil {
		t.Fatal(err)
	}
	j, err := nodes[0].Journal(ctx, "election")
	if err != nil {
		t.Fatal(err)
	}
	first, err := ls.Acquire(ctx, "session.s0")
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := j.Open(ctx, "s0", first)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(ctx, []byte("one")); err != nil {
		t.Fatal(err)
	}
	for _, stream := range []string{"KV_" + leaseBucket, "KV_election", "BEAMCLAW_election"} {
		leadTo(ctx, t, nodes[0], stream, "n1")
	}
	kill9()
	start := time.Now()
	var wg sync.WaitGroup // each asked at once, while both streams elect
	wg.Go(func() {
		if _, err := ls.Acquire(ctx, "session.s1"); err != nil {
			t.Errorf("a lease asked for while its leader was dead: %v", err)
		}
	})
	wg.Go(func() {
		if err := b.Put(ctx, "k", []byte("v")); err != nil {
			t.Errorf("a put while the bucket's leader was dead: %v", err)
		}
	})
	wg.Go(func() {
		if _, recs, err := j.Open(ctx, "s0", first); err != nil || len(recs) != 2 || string(recs[1].Data) != "one" {
			t.Errorf("a journal opened while its leader was dead: %+v %v", recs, err)
		}
	})
	wg.Go(func() {
		if err := b.Delete(ctx, "gone"); err != nil {
			t.Errorf("a delete while the bucket's leader was dead: %v", err)
		}
	})
	wg.Wait()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) { // reads come from any replica: one may lag a moment behind
		v, ok, err := b.Get(ctx, "k")
		if err == nil && ok && string(v) == "v" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("get = %q %v %v", v, ok, err)
		}
	}
	t.Logf("answered %s after the leader of all three was killed", time.Since(start).Round(time.Millisecond))
}

// A listing asked for while JetStream's meta leader is dead (killed with
// -9) waits out the meta group's election: the ordered consumer it reads
// through is created by the meta leader, and a request for one that
// nobody answered was never asked again (the listing hung until its
// context ended).
func TestListingWaitsOutAMetaElection(t *testing.T) {
	cfgs := testConfigs(t, 3, 3)
	kill9 := procNode(t, cfgs[0])
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dirs := []string{t.TempDir(), t.TempDir()}
	nodes := []*Node{startNode(t, cfgs[1], dirs[0]), startNode(t, cfgs[2], dirs[1])}
	for tries := 0; ; tries++ { // n1 leads the meta group: an in-process leader hands it over as it closes
		for _, n := range nodes {
			if err := n.Ready(ctx); err != nil {
				t.Fatal(err)
			}
		}
		leader := nodes[0].MetaLeader()
		if leader == "n1" {
			break
		}
		if tries == 20 {
			t.Fatalf("n1 never led the meta group (%s does)", leader)
		}
		for i, n := range nodes {
			if n.ID() == leader {
				n.Close()
				nodes[i] = startNode(t, cfgs[1+i], dirs[i])
			}
		}
	}
	b, err := nodes[0].Bucket(ctx, "listing")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if err := b.Put(ctx, k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	kill9()
	began := time.Now()
	var got []string
	if err := b.Each(ctx, func(k string, _ []byte) { got = append(got, k) }); err != nil {
		t.Fatalf("a listing while the meta leader was dead: %v", err)
	}
	if strings.Join(got, ",") != "a,b" {
		t.Fatalf("listed %q, want a and b", got)
	}
	t.Logf("listed %s after the meta leader was killed", time.Since(began).Round(time.Millisecond))
}
