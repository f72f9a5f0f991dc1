package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// statusSubject is where every node answers who it is and what it runs.
const statusSubject = "beamclaw.cluster.status"

// statusWait is how long a status request collects the nodes' answers.
const statusWait = 500 * time.Millisecond

// nodeInfo is one node's answer to a status request.
type nodeInfo struct {
	Node       string   `json:"node"`
	Singletons []string `json:"singletons,omitempty"`
}

// singletons are the cluster-wide services this node runs now (Singleton).
type singletons struct {
	mu   sync.Mutex
	runs map[string]bool
}

func (s *singletons) set(name string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[string]bool{}
	}
	if on {
		s.runs[name] = true
	} else {
		delete(s.runs, name)
	}
}

func (s *singletons) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.runs))
	for n := range s.runs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// answerStatus subscribes this node to status requests.
func (n *Node) answerStatus() (*nats.Subscription, error) {
	return n.nc.Subscribe(statusSubject, func(m *nats.Msg) {
		b, _ := json.Marshal(nodeInfo{Node: n.cfg.NodeID, Singletons: n.single.list()})
		_ = m.Respond(b)
	})
}

// Status is the cluster as this node sees it: the nodes that answer now
// and those JetStream knows of, its meta leader (none: no quorum), the
// replicated streams and buckets, and the sessions each node owns.
func (n *Node) Status(ctx context.Context) protocol.ClusterStatus {
	st := protocol.ClusterStatus{Name: n.cfg.Name, Node: n.cfg.NodeID, Replicas: n.cfg.Replicas}
	known := map[string]*protocol.ClusterNode{n.cfg.NodeID: {Name: n.cfg.NodeID}}
	size := 1
	st.MetaLeader = n.MetaLeader()
	if info, err := n.srv.Jsz(&server.JSzOptions{}); err == nil && info.Meta != nil {
		st.MetaLeader, size = info.Meta.Leader, max(info.Meta.Size, 1)
		for _, p := range info.Meta.Replicas {
			known[p.Name] = &protocol.ClusterNode{Name: p.Name}
		}
	}
	up := 0
	for _, in := range n.askNodes(ctx) {
		if known[in.Node] == nil {
			known[in.Node] = &protocol.ClusterNode{Name: in.Node}
		}
		known[in.Node].Up, known[in.Node].Singletons = true, in.Singletons
		up++
	}
	// A leader that lost its followers keeps the title for a while: the
	// nodes answering now are the proof of a majority.
	st.Quorum = st.MetaLeader != "" && up >= size/2+1
	if !st.Quorum {
		st.Problems = append(st.Problems, fmt.Sprintf("no JetStream quorum: %d of %d nodes reachable, %d needed; nothing can be written", up, size, size/2+1))
	}
	if st.MetaLeader != "" && known[st.MetaLeader] != nil {
		known[st.MetaLeader].Leader = true
	}
	if st.Quorum {
		st.Streams, st.Problems = n.streams(ctx, st.Problems)
		if owned, err := n.owned(ctx); err == nil {
			for node, c := range owned {
				if known[node] != nil {
					known[node].Sessions = c
				}
			}
		}
	}
	for _, k := range known {
		st.Nodes = append(st.Nodes, *k)
	}
	slices.SortFunc(st.Nodes, func(a, b protocol.ClusterNode) int { return strings.Compare(a.Name, b.Name) })
	return st
}

// Alive names the nodes that answer now (within a status request's wait).
func (n *Node) Alive(ctx context.Context) map[string]bool {
	out := map[string]bool{}
	for _, in := range n.askNodes(ctx) {
		out[in.Node] = true
	}
	return out
}

// askNodes gathers the answers of every node that answers within
// statusWait.
func (n *Node) askNodes(ctx context.Context) []nodeInfo {
	inbox := nats.NewInbox()
	ch := make(chan *nats.Msg, 64)
	sub, err := n.nc.ChanSubscribe(inbox, ch)
	if err != nil {
		return nil
	}
	defer sub.Unsubscribe()
	if err := n.nc.PublishRequest(statusSubject, inbox, nil); err != nil {
		return nil
	}
	t := time.NewTimer(statusWait)
	defer t.Stop()
	var out []nodeInfo
	for {
		select {
		case m := <-ch:
			var in nodeInfo
			if json.Unmarshal(m.Data, &in) == nil && in.Node != "" {
				out = append(out, in)
			}
		case <-t.C:
			return out
		case <-ctx.Done():
			return out
		}
	}
}

// streams lists the replicated streams (buckets among them) and their
// replicas' health.
func (n *Node) streams(ctx context.Context, problems []string) ([]protocol.ClusterStream, []string) {
	var out []protocol.ClusterStream
	l := n.js.ListStreams(ctx)
	for info := range l.Info() {
		s := protocol.ClusterStream{Name: info.Config.Name, Replicas: info.Config.Replicas,
			Messages: info.State.Msgs, Bytes: info.State.Bytes}
		if c := info.Cluster; c != nil {
			s.Leader = c.Leader
			if c.Leader != "" {
				s.Current = 1
			}
			for _, p := range c.Replicas {
				if p.Current {
					s.Current++
				}
			}
		}
		if s.Leader == "" {
			problems = append(problems, fmt.Sprintf("stream %s has no leader", s.Name))
		} else if s.Current < s.Replicas {
			problems = append(problems, fmt.Sprintf("stream %s: %d of %d replicas current", s.Name, s.Current, s.Replicas))
		}
		out = append(out, s)
	}
	if err := l.Err(); err != nil {
		problems = append(problems, "streams: "+err.Error())
	}
	return out, problems
}

// owned counts the session leases each node holds.
func (n *Node) owned(ctx context.Context) (map[string]int, error) {
	ls, err := n.Leases(ctx)
	if err != nil {
		return nil, err
	}
	return ls.Count(ctx, SessionLeasePrefix)
}

// SessionLeasePrefix begins the lease name of every session.
const SessionLeasePrefix = "session."
