package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
	"github.com/beamclaw/beamclaw-go/test/freeport"
)

const clusterToken = "e2e-cluster-token-0123456789abcdefghijklmnop"

// clusterNodes are n chat rigs sharing one fake provider, configured as
// the nodes of one cluster (R = replicas); not started.
func clusterNodes(t *testing.T, n, replicas int) []*chatRig {
	t.Helper()
	return clusterNodesWith(t, n, replicas, rigOptions{})
}

// clusterNodesWith is clusterNodes with the rigs' options o.
func clusterNodesWith(t *testing.T, n, replicas int, o rigOptions) []*chatRig {
	t.Helper()
	llm := fakellm.New(t)
	cfg := rigConfig(llm.URL(), o)
	var rigs []*chatRig
	for _, h := range clusterHomes(t, n, replicas, cfg) {
		hc := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
		t.Cleanup(hc.CloseIdleConnections)
		rigs = append(rigs, &chatRig{t: t, h: h, llm: llm, hc: hc})
	}
	return rigs
}

// clusterHomes are n homes configured as the nodes of one cluster on
// loopback (R = replicas), each with its own ports: base (the rest of the
// config; "" for a bare gateway) and the cluster section. Not started.
func clusterHomes(t *testing.T, n, replicas int, base string) []*home {
	t.Helper()
	ports, err := freeport.Ports(2 * n)
	if err != nil {
		t.Fatal(err)
	}
	var homes []*home
	for i := range n {
		var routes []string
		for j := range n {
			if j != i {
				routes = append(routes, fmt.Sprintf("%q", fmt.Sprintf("nats-route://127.0.0.1:%d", ports[2*j+1])))
			}
		}
		if base == "" {
			base = "gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n"
		}
		cfg := base + fmt.Sprintf("cluster:\n  enabled: true\n  name: e2e\n  node_id: n%d\n  client_listen: 127.0.0.1:%d\n"+
			"  route_listen: 127.0.0.1:%d\n  routes: [%s]\n  replicas: %d\n  lease_ttl: 2s\n",
			i+1, ports[2*i], ports[2*i+1], strings.Join(routes, ", "), replicas)
		h := newHome(t, cfg)
		h.env = append(h.env, "BEAMCLAW_CLUSTER_TOKEN="+clusterToken)
		homes = append(homes, h)
	}
	return homes
}

// clusterStatus runs beamclaw cluster status --json on h.
func clusterStatus(t *testing.T, h *home) (protocol.ClusterStatus, result) {
	t.Helper()
	r := h.run("cluster", "status", "--json")
	var st protocol.ClusterStatus
	if r.code != 0 && r.code != 1 || json.Unmarshal([]byte(r.stdout), &st) != nil {
		t.Fatalf("cluster status: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return st, r
}

// awaitStatus asks h until ok holds of its status (30 s at most).
func awaitStatus(t *testing.T, h *home, what string, ok func(protocol.ClusterStatus) bool) protocol.ClusterStatus {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, _ := clusterStatus(t, h)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never; last status %+v", what, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func upCount(st protocol.ClusterStatus) int {
	n := 0
	for _, x := range st.Nodes {
		if x.Up {
			n++
		}
	}
	return n
}

// Three daemons form a cluster: each node's status names all three and
// the meta leader, and so does doctor; a node killed with -9 shows down
// while the other two keep the quorum; with two of three gone, status
// exits 1 and doctor fails, both naming the lost quorum.
func TestClusterFormsAndNamesALostQuorum(t *testing.T) {
	homes := clusterHomes(t, 3, 3, "")
	var pids []int
	for _, h := range homes {
		pids = append(pids, h.start().PID)
	}
	for _, h := range homes {
		st := awaitStatus(t, h, "three nodes up with a quorum", func(st protocol.ClusterStatus) bool {
			return st.Quorum && upCount(st) == 3
		})
		if st.Name != "e2e" || st.MetaLeader == "" || len(st.Nodes) != 3 || st.Replicas != 3 {
			t.Fatalf("status: %+v", st)
		}
	}
	if _, err := os.Stat(filepath.Join(homes[0].dir, "nats")); err != nil {
		t.Fatalf("JetStream's files are not under the home: %v", err)
	}
	r := homes[0].must("cluster", "status")
	for _, want := range []string{"cluster e2e, seen from node n1", "quorum kept", "n2", "n3", "meta leader"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("cluster status lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := homes[1].run("doctor"); !strings.Contains(r.stdout, "3 of 3 nodes up") {
		t.Errorf("doctor on n2:\n%s", r.stdout)
	}

	if err := syscall.Kill(pids[2], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st := awaitStatus(t, homes[0], "n3 down, the quorum kept", func(st protocol.ClusterStatus) bool {
		return st.Quorum && upCount(st) == 2
	})
	for _, n := range st.Nodes {
		if n.Name == "n3" && n.Up {
			t.Fatalf("n3 is up after kill -9: %+v", st)
		}
	}
	if err := syscall.Kill(pids[1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st = awaitStatus(t, homes[0], "the quorum lost", func(st protocol.ClusterStatus) bool { return !st.Quorum })
	_, r = clusterStatus(t, homes[0])
	if r.code != 1 || !strings.Contains(r.stderr, "no quorum") {
		t.Errorf("cluster status without a quorum: exit %d, stderr %q", r.code, r.stderr)
	}
	if len(st.Problems) == 0 || !strings.Contains(st.Problems[0], "no JetStream quorum: 1 of 3 nodes reachable, 2 needed") {
		t.Errorf("problems: %q", st.Problems)
	}
	if r := homes[0].run("doctor"); r.code == 0 || !strings.Contains(r.stdout, "no JetStream quorum") {
		t.Errorf("doctor without a quorum: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// A daemon that runs alone starts no NATS: no JetStream files, no
// cluster subsystem, and cluster status says why it has nothing to show.
func TestSingleNodeStartsNoNATS(t *testing.T) {
	h := newHome(t, "")
	s := h.start()
	if _, err := os.Stat(filepath.Join(h.dir, "nats")); !os.IsNotExist(err) {
		t.Fatalf("a single node made %s/nats: %v", h.dir, err)
	}
	if _, body := get(t, "http://"+s.HTTPAddr+"/health"); strings.Contains(body, "cluster") {
		t.Fatalf("/health of a single node names a cluster: %s", body)
	}
	r := h.run("cluster", "status")
	if r.code == 0 || !strings.Contains(r.stderr, "cluster.enabled is false") {
		t.Fatalf("cluster status alone: exit %d %q", r.code, r.stderr)
	}
	h.must("stop")
}

// A conversation is one, whichever node a message reaches: the node that
// first took it owns it and the others forward to it, answers streaming
// back through them. When the owner is killed with -9, the next message
// is answered by another node with the whole history, within the lease.
func TestClusterSessionFollowsItsOwner(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	for _, r := range rigs {
		r.start()
	}
	for _, r := range rigs {
		awaitStatus(t, r.h, "three nodes with a quorum", func(st protocol.ClusterStatus) bool { return st.Quorum && upCount(st) == 3 })
	}
	// The streams are made by the first message; then the owner is the
	// node that leads the most of the streams a takeover writes: the dead
	// leader's streams wait for JetStream's elections (1.5-3.5 s, ADR-051)
	// first, the slowest failover.
	rigs[0].chat("warm", "hello")
	st := awaitStatus(t, rigs[0].h, "the streams", func(st protocol.ClusterStatus) bool { return len(st.Streams) >= 6 })
	owner := busiestNode(st)
	t.Logf("owner n%d; leaders: meta %s, streams %+v", owner+1, st.MetaLeader, st.Streams)
	for i, word := range []string{"one", "two", "three"} {
		if got := rigs[(owner+i)%3].chat("erin", word); got != "echo: "+word {
			t.Fatalf("n%d answered %q", (owner+i)%3+1, got)
		}
	}
	conv := llmConversation(llmLast(t, rigs[0].llm))
	if strings.Join(conv, "|") != "user: one|assistant: echo: one|user: two|assistant: echo: two|user: three" {
		t.Fatalf("the third turn sent %q", conv)
	}
	ownerName := fmt.Sprintf("n%d", owner+1)
	awaitStatus(t, rigs[(owner+2)%3].h, ownerName+" owns erin's session", func(st protocol.ClusterStatus) bool {
		for _, n := range st.Nodes {
			if n.Name == ownerName && n.Sessions >= 1 {
				return true
			}
		}
		return false
	})
	other, third := rigs[(owner+1)%3], rigs[(owner+2)%3]
	rigs[owner].kill9()

	killed := time.Now()
	var got string
	for deadline := time.Now().Add(20 * time.Second); ; {
		code, body := other.post("erin", "four")
		if code == http.StatusOK {
			var a chatAnswer
			if err := json.Unmarshal([]byte(body), &a); err != nil || len(a.Choices) != 1 {
				t.Fatalf("bad completion: %s", body)
			}
			got = a.Choices[0].Message.Content
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no node answered after the owner died: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	failover := time.Since(killed)
	t.Logf("failover: first answer from the new owner %s after kill -9", failover.Round(time.Millisecond))
	if got != "echo: four" {
		t.Fatalf("answer after failover: %q", got)
	}
	conv = llmConversation(llmLast(t, rigs[0].llm))
	want := "user: one|assistant: echo: one|user: two|assistant: echo: two|user: three|assistant: echo: three|user: four"
	if strings.Join(conv, "|") != want {
		t.Fatalf("after failover the turn sent %q", conv)
	}
	if got := third.chat("erin", "five"); got != "echo: five" {
		t.Fatalf("n3 after failover: %q", got)
	}
	if _, body := get(t, "http://"+third.addr+"/metrics"); !regexp.MustCompile(`(?m)^beamclaw_cluster_forwarded_total [1-9]`).MatchString(body) {
		t.Errorf("the forwarding node's metrics: %s", grepLines(body, "beamclaw_cluster_"))
	}
	if _, body := get(t, "http://"+other.addr+"/metrics"); !regexp.MustCompile(`(?m)^beamclaw_cluster_lease_moves_total [1-9]`).MatchString(body) {
		t.Errorf("the new owner's metrics: %s", grepLines(body, "beamclaw_cluster_"))
	}

	// An approval asked by a session owned on one node is answered on the
	// connection of another: the request comes through, the answer goes
	// back, the tool runs once where the session lives.
	other.llm.SetDefault(fakellm.Rules)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := other.dial("erin")
	if _, err := first.Send(ctx, "hello from the owner's node"); err != nil {
		t.Fatal(err)
	}
	frameOf(t, first, protocol.FrameFinal) // the ws session is other's now
	conn := third.dial("erin")
	if _, err := conn.Send(ctx, `call tool write_file {"path":"across.txt","content":"once"}`); err != nil {
		t.Fatal(err)
	}
	asked := frameOf(t, conn, protocol.FrameApprovalRequest)
	if err := conn.Approve(asked.Approval.ID, protocol.DecisionAllow); err != nil {
		t.Fatal(err)
	}
	if f := frameOf(t, conn, protocol.FrameFinal); f.RunID != asked.RunID {
		t.Errorf("final of run %s, want %s", f.RunID, asked.RunID)
	}
	b, err := os.ReadFile(filepath.Join(other.h.dir, "agents", "default", "across.txt"))
	if err != nil || string(b) != "once" {
		t.Errorf("the approved tool's file on the owner: %q %v", b, err)
	}
}

// takeoverLeads counts, per node, what it leads of what a takeover of
// its sessions needs (the meta group, the lease bucket, the sessions'
// journal and summaries): a dead leader's streams wait for JetStream's
// elections before another node can take over.
func takeoverLeads(st protocol.ClusterStatus) []int {
	leads := make([]int, len(st.Nodes))
	for i := range st.Nodes {
		name := fmt.Sprintf("n%d", i+1)
		for _, s := range st.Streams {
			if s.Leader == name && (s.Name == "KV_beamclaw_leases" || s.Name == "BEAMCLAW_SESSIONS" || s.Name == "KV_beamclaw_sessions") {
				leads[i]++
			}
		}
		if st.MetaLeader == name {
			leads[i]++
		}
	}
	return leads
}

// quietNode is the node whose death waits for the fewest elections.
func quietNode(st protocol.ClusterStatus) int {
	leads := takeoverLeads(st)
	return slices.Index(leads, slices.Min(leads))
}

// busiestNode is the node whose death waits for the most elections: the
// slowest failover.
func busiestNode(st protocol.ClusterStatus) int {
	leads := takeoverLeads(st)
	return slices.Index(leads, slices.Max(leads))
}

// startCluster starts rigs, waits for the quorum and makes the streams
// (the first message does); it returns the status then.
func startCluster(t *testing.T, rigs []*chatRig) protocol.ClusterStatus {
	t.Helper()
	for _, r := range rigs {
		r.start()
	}
	for _, r := range rigs {
		awaitStatus(t, r.h, "every node with a quorum", func(st protocol.ClusterStatus) bool { return st.Quorum && upCount(st) == len(rigs) })
	}
	rigs[0].chat("warm", "hello")
	return awaitStatus(t, rigs[0].h, "the streams", func(st protocol.ClusterStatus) bool { return len(st.Streams) >= 6 })
}

// A node paused (SIGSTOP) in the middle of a turn, past its lease, cannot
// write when it wakes (SIGCONT): another node took the conversation over
// and fenced it, so the late answer is stored nowhere and the woken node
// stops that session at once; the conversation goes on without it.
func TestClusterPausedOwnerCannotWrite(t *testing.T) {
	rigs := clusterNodes(t, 3, 3)
	owner := quietNode(startCluster(t, rigs))
	old, other, third := rigs[owner], rigs[(owner+1)%3], rigs[(owner+2)%3]
	if got := old.chat("erin", "one"); got != "echo: one" {
		t.Fatalf("answer: %q", got)
	}
	hold := make(chan struct{})
	old.llm.Script(fakellm.Reply{Text: "stale answer", Hold: hold})
	asked := len(old.llm.Requests())
	late := make(chan string, 1)
	go func() {
		code, body := tryPost(old, "erin", "two") // may time out while paused
		late <- fmt.Sprintf("%d %s", code, body)
	}()
	pollUntil(t, 10*time.Second, "the held request for two", func() bool { return len(old.llm.Requests()) > asked })
	if err := syscall.Kill(old.pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(old.pid, syscall.SIGCONT) }()
	var conv []string
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if code, _ := other.post("erin", "three"); code == http.StatusOK {
			conv = llmConversation(llmLast(t, other.llm))
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no node took the conversation over from the paused owner")
		}
	}
	// "two" was never acknowledged (an HTTP turn commits the message with
	// its answer), so it may or may not be there; its answer is not.
	if got := strings.Join(conv, "|"); !strings.HasPrefix(got, "user: one|assistant: echo: one|") || !strings.HasSuffix(got, "|user: three") {
		t.Fatalf("the takeover's turn sent %q", conv)
	}
	close(hold)
	if err := syscall.Kill(old.pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-late:
		// Its answer (the held one, or a retry's once its first-token
		// timeout passed in the pause) can be stored nowhere.
		if strings.HasPrefix(got, "200 ") {
			t.Fatalf("the paused owner answered after waking: %s", got)
		}
		t.Logf("the woken owner's client got: %s", got)
	case <-time.After(40 * time.Second):
		t.Fatal("the woken owner never answered its client")
	}
	for _, r := range []*chatRig{third, old} {
		// The woken node may have led JetStream's groups: until they have
		// settled on their leaders, the cluster answers 503 (try again).
		code, body := r.post("erin", "four")
		for deadline := time.Now().Add(20 * time.Second); code == http.StatusServiceUnavailable && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
			code, body = r.post("erin", "four")
		}
		if code != http.StatusOK || !strings.Contains(body, "echo: four") {
			t.Fatalf("after the wake: %d %s\n%s", code, body, grepLines(r.h.logs(), "could not be loaded"))
		}
		conv = llmConversation(llmLast(t, r.llm))
		if c := strings.Join(conv, "|"); strings.Contains(c, "stale answer") || strings.Contains(c, "echo: two") {
			t.Fatalf("the paused owner's late answer was stored: %q", conv)
		}
	}
}

// A bot's long poll runs on one node of the cluster (two pollers would
// answer every message twice) and moves when that node dies; the chat's
// conversation goes with it.
func TestClusterTelegramPollerMoves(t *testing.T) {
	llm, tg := fakellm.New(t), faketelegram.New(t)
	cfg := tgConfig(llm.URL(), tg.URL(), tgOptions{dmPolicy: "open"})
	var homes []*home
	for _, h := range clusterHomes(t, 3, 3, cfg) {
		h.env = append(h.env, "TELEGRAM_BOT_TOKEN="+tg.Token(), "TG_STT_KEY=stt-test-key")
		homes = append(homes, h)
	}
	var pids []int
	for _, h := range homes {
		pids = append(pids, h.start().PID)
	}
	poller := func(h *home, not string) string {
		var at string
		awaitStatus(t, h, "one node polls Telegram", func(st protocol.ClusterStatus) bool {
			at = ""
			for _, n := range st.Nodes {
				for _, s := range n.Singletons {
					if s == "channel.telegram" {
						if at != "" {
							t.Fatalf("two pollers: %+v", st.Nodes)
						}
						at = n.Name
					}
				}
			}
			return at != "" && at != not
		})
		return at
	}
	answers := func(text string) int {
		n := 0
		for _, m := range tg.Messages(tgAna.ID) {
			if strings.Contains(m.Text, "echo: "+text) {
				n++
			}
		}
		return n
	}
	first := poller(homes[0], "")
	tg.SendText(tgAna.ID, tgAna, "ping one")
	pollUntil(t, tgWait, "the answer to ping one", func() bool { return answers("ping one") > 0 })
	time.Sleep(2 * time.Second) // a second poller would have answered by now
	if n := answers("ping one"); n != 1 {
		t.Fatalf("ping one answered %d times", n)
	}
	var dead int
	fmt.Sscanf(first, "n%d", &dead)
	if err := syscall.Kill(pids[dead-1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	next := poller(homes[dead%3], first)
	t.Logf("the poll moved from %s to %s", first, next)
	tg.SendText(tgAna.ID, tgAna, "ping two")
	pollUntil(t, tgWait, "the answer to ping two", func() bool { return answers("ping two") > 0 })
	time.Sleep(2 * time.Second)
	if n := answers("ping two"); n != 1 {
		t.Fatalf("ping two answered %d times", n)
	}
	if conv := strings.Join(llmConversation(llmLast(t, llm)), "|"); !strings.Contains(conv, "user: ping one|assistant: echo: ping one|user: ping two") {
		t.Fatalf("the moved poll's turn sent %q", conv)
	}
}
