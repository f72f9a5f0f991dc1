package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// State is the log of the store's replicated areas (store.Log; ADR-045):
// the journal STATE, one subject per area, R = cluster.replicas. It is
// opened on first use: a cluster's first node starts before there is a
// quorum to make it with.
type State struct {
	n  *Node
	mu sync.Mutex
	j  *Journal
}

// State returns this node's handle on the areas' log.
func (n *Node) State() *State { return &State{n: n} }

// pingSubject is where a writer says, after its record was stored, that
// the area has a new one: the other nodes read it at once.
func pingSubject(area string) string { return "beamclaw.state." + leaseKey(area) }

func (s *State) journal(ctx context.Context) (*Journal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.j != nil {
		return s.j, nil
	}
	j, err := s.n.Journal(ctx, "STATE")
	if err != nil {
		return nil, err
	}
	s.j = j
	return j, nil
}

// Next returns the area's first record after the sequence after.
func (s *State) Next(ctx context.Context, area string, after uint64) (uint64, []byte, bool, error) {
	j, err := s.journal(ctx)
	if err != nil {
		return 0, nil, false, err
	}
	msg, err := retryAPI(ctx, func(ctx context.Context) (*jetstream.RawStreamMsg, error) { // a dead leader never answers
		return j.s.GetMsg(ctx, after+1, jetstream.WithGetMsgSubject(j.subject+"."+leaseKey(area)))
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, fmt.Errorf("cluster: read %s: %w", area, err)
	}
	return msg.Sequence, msg.Data, true, nil
}

// Append stores data as the area's next record if the area's newest is
// still after; it returns once a quorum stored it.
func (s *State) Append(ctx context.Context, area string, after uint64, data []byte) (uint64, bool, error) {
	j, err := s.journal(ctx)
	if err != nil {
		return 0, false, err
	}
	m := nats.NewMsg(j.subject + "." + leaseKey(area))
	m.Data = data
	m.Header.Set(hdrNode, s.n.cfg.NodeID)
	start := time.Now()
	ack, err := j.publish(ctx, m, after)
	if wrongLast(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("cluster: append to %s: %w", area, err)
	}
	s.n.stats.JournalWrites.Add(1)
	s.n.stats.JournalNanos.Add(uint64(time.Since(start)))
	_ = s.n.nc.Publish(pingSubject(area), nil) // a lost ping is made up by the others' polling
	return ack.Sequence, true, nil
}

// Trim drops the area's records before the sequence before.
func (s *State) Trim(ctx context.Context, area string, before uint64) error {
	j, err := s.journal(ctx)
	if err != nil {
		return err
	}
	if err := j.s.Purge(ctx, jetstream.WithPurgeSubject(j.subject+"."+leaseKey(area)), jetstream.WithPurgeSequence(before)); err != nil {
		return fmt.Errorf("cluster: trim %s: %w", area, err)
	}
	return nil
}

// Watch calls fn whenever another node stored a record of the area,
// until ctx ends.
func (s *State) Watch(ctx context.Context, area string, fn func()) error {
	sub, err := s.n.nc.Subscribe(pingSubject(area), func(*nats.Msg) { fn() })
	if err != nil {
		return fmt.Errorf("cluster: watch %s: %w", area, err)
	}
	<-ctx.Done()
	return sub.Unsubscribe()
}
