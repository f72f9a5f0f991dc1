package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/usage"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// jsTimeout bounds one JetStream operation of the cluster backend.
const jsTimeout = 10 * time.Second

// OwnedElsewhereError is returned when another node of the cluster owns
// the session now: its messages go there (Options.Forward).
type OwnedElsewhereError struct {
	Session string
	Node    string
}

func (e *OwnedElsewhereError) Error() string {
	return fmt.Sprintf("session %s is owned by node %s", e.Session, e.Node)
}

// jsBackend keeps sessions on JetStream (cluster mode): each session's
// changes are the records of its journal, written only by the node that
// holds its lease and fenced against any other; summaries, the thread
// index, responses and maintenance marks are replicated buckets.
type jsBackend struct {
	node    *cluster.Node
	leases  *cluster.Leases
	journal *cluster.Journal
	sums    *cluster.Bucket // id -> jsSummary
	threads *cluster.Bucket // threadKey -> thread; threadPrefix -> "1"
	resps   *cluster.Bucket // response id -> Response
	maint   *cluster.Bucket // id -> maintMark; "last_night" -> date
	lost    func(id string) // a claim was lost: stop the session here at once
	// db and ledger record the runs' model calls on this node (the
	// ledger is each node's own).
	db     *store.DB
	ledger *usage.Ledger
	openMu sync.Mutex // opened: the fields above are set once

	num    atomic.Int64 // stored sessions, as last counted (count)
	mu     sync.Mutex
	claims map[string]*claim
	failed bool // the last write failed for the cluster's sake
}

// claim is this node's hold on a live session.
type claim struct {
	lease   *cluster.Lease
	w       *cluster.Writer
	renewed time.Time // by keep only
	first   string    // the session's first user message, for its summary
}

// jsChange is a change as a journal record.
type jsChange struct {
	Rec     record             `json:"rec"`
	Reset   bool               `json:"reset,omitempty"`
	From    uint64             `json:"from,omitempty"`
	Msgs    []beamclaw.Message `json:"msgs,omitempty"`
	Pend    []beamclaw.Message `json:"pend,omitempty"`
	PendSeq uint64             `json:"pend_seq,omitempty"`
	Unpend  []uint64           `json:"unpend,omitempty"`
	Seen    *seenID            `json:"seen,omitempty"`
	Forget  []string           `json:"forget,omitempty"`
	Index   map[string]string  `json:"index,omitempty"`
	Resp    *Response          `json:"resp,omitempty"`
	Outputs []loop.Output      `json:"outputs,omitempty"`
}

// jsSummary is a session's entry in the summaries bucket.
type jsSummary struct {
	Rec   record `json:"rec"`
	First string `json:"first,omitempty"` // its first user message
}

func newJSBackend(n *cluster.Node) *jsBackend {
	return &jsBackend{node: n, claims: map[string]*claim{}}
}

// opened makes the streams and buckets on first use: a cluster's first
// node starts before there is a quorum to make them with.
func (b *jsBackend) opened() error {
	b.openMu.Lock()
	defer b.openMu.Unlock()
	if b.sums != nil {
		return nil
	}
	ctx, cancel := opCtx()
	defer cancel()
	leases, err := b.node.Leases(ctx)
	if err != nil {
		return unavailable(err)
	}
	journal, err := b.node.Journal(ctx, "SESSIONS")
	if err != nil {
		return unavailable(err)
	}
	var bks [4]*cluster.Bucket
	for i, name := range []string{"beamclaw_sessions", "beamclaw_session_threads", "beamclaw_session_responses", "beamclaw_session_maintenance"} {
		if bks[i], err = b.node.Bucket(ctx, name); err != nil {
			return unavailable(err)
		}
	}
	b.leases, b.journal = leases, journal
	b.threads, b.resps, b.maint, b.sums = bks[1], bks[2], bks[3], bks[0]
	return nil
}

// open makes the streams and buckets as soon as the cluster has a quorum
// (a service of the manager), so that the first message does not wait
// for JetStream's meta leader; a use before then opens them itself.
func (b *jsBackend) open(ctx context.Context) error {
	for b.opened() != nil {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
	<-ctx.Done()
	return nil
}

// unavailable is the cluster's store failing for a moment (no quorum, a
// leader being elected, a node that wrote as this one took over): the
// store's kind, a 503 the client retries.
func unavailable(err error) error {
	return beamclaw.E("session", beamclaw.KindStorage, "the cluster's store cannot be reached now (no quorum?); try again", err)
}

func opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), jsTimeout)
}

// claimSession takes the session's lease for this node, fences its
// journal and reads it: from then on only this node writes the session.
// Another holder is an *OwnedElsewhereError.
func (b *jsBackend) claimSession(id string) (stored, bool, error) {
	if err := b.opened(); err != nil {
		return stored{}, false, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	lease, err := b.leases.Acquire(ctx, cluster.SessionLeasePrefix+id)
	var held *cluster.HeldError
	if errors.As(err, &held) {
		return stored{}, false, &OwnedElsewhereError{Session: id, Node: held.Node}
	}
	if err != nil {
		return stored{}, false, unavailable(err)
	}
	// Fenced here: a node that held the session a moment ago wrote after
	// this read; its lease is gone, so the next try reads that write.
	w, recs, err := b.journal.Open(ctx, id, lease)
	if err != nil {
		_ = b.leases.Release(ctx, lease)
		return stored{}, false, unavailable(err)
	}
	b.mu.Lock()
	b.claims[id] = &claim{lease: lease, w: w, renewed: time.Now()}
	b.mu.Unlock()
	st, found, err := b.replay(ctx, id, recs, true)
	if err != nil {
		b.unclaim(id)
		return st, found, err
	}
	b.mu.Lock()
	b.claims[id].first = firstUser(st.history)
	b.mu.Unlock()
	if n := len(recs); n > 0 && recs[n-1].Node != b.node.ID() {
		b.node.Stats().LeaseMoves.Add(1) // taken over from another node
	}
	return st, found, nil
}

// unclaim gives the session's lease up (hibernated, deleted, stopped).
func (b *jsBackend) unclaim(id string) {
	b.mu.Lock()
	c := b.claims[id]
	delete(b.claims, id)
	b.mu.Unlock()
	if c != nil {
		ctx, cancel := opCtx()
		defer cancel()
		_ = b.leases.Release(ctx, c.lease)
	}
}

// load reads a session without claiming it (a read of its history).
func (b *jsBackend) load(id string) (stored, bool, error) {
	if err := b.opened(); err != nil {
		return stored{}, false, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	recs, err := b.journal.Read(ctx, id)
	if err != nil {
		return stored{}, false, err
	}
	return b.replay(ctx, id, recs, false)
}

// replay applies a journal's records in order. The owner also puts back
// what a record carries for the buckets (a node may have died between
// its journal write and theirs).
func (b *jsBackend) replay(ctx context.Context, id string, recs []cluster.Record, owner bool) (stored, bool, error) {
	mb := newMemBackend()
	for _, r := range recs {
		if r.Fence {
			continue
		}
		var c jsChange
		if err := json.Unmarshal(r.Data, &c); err != nil {
			return stored{}, false, fmt.Errorf("session %s: record %d: %w", id, r.Seq, err)
		}
		if err := mb.apply(id, c.change()); err != nil {
			return stored{}, false, err
		}
		if owner {
			if err := b.putSide(ctx, c); err != nil {
				return stored{}, false, err
			}
		}
	}
	st, found, err := mb.load(id)
	if !found || err != nil {
		return st, found, err
	}
	if v, ok, err := b.sums.Get(ctx, id); err == nil && ok { // archiving is written to the summary only
		var s jsSummary
		if json.Unmarshal(v, &s) == nil {
			st.rec.Archived = s.Rec.Archived
		}
	}
	return st, true, nil
}

func (c jsChange) change() change {
	return change{rec: c.Rec, reset: c.Reset, from: c.From, msgs: c.Msgs, pend: c.Pend, pendSeq: c.PendSeq,
		unpend: c.Unpend, seen: c.Seen, forget: c.Forget, index: c.Index, resp: c.Resp, outputs: c.Outputs}
}

// apply appends the change to the session's journal under this node's
// claim; the write is refused when another node took the session over.
func (b *jsBackend) apply(id string, c change) error {
	b.mu.Lock()
	cl := b.claims[id]
	b.mu.Unlock()
	if cl == nil {
		return beamclaw.E("session", beamclaw.KindUnavailable, "this node no longer owns the session", nil)
	}
	data, err := json.Marshal(jsChange{Rec: c.rec, Reset: c.reset, From: c.from, Msgs: c.msgs, Pend: c.pend,
		PendSeq: c.pendSeq, Unpend: c.unpend, Seen: c.seen, Forget: c.forget, Index: c.index, Resp: c.resp, Outputs: c.outputs})
	if err != nil {
		return err
	}
	ctx, cancel := opCtx()
	defer cancel()
	err = cl.w.Append(ctx, data)
	b.mu.Lock()
	b.failed = err != nil && !errors.Is(err, cluster.ErrFenced)
	b.mu.Unlock()
	if errors.Is(err, cluster.ErrFenced) {
		b.dropClaim(id)
		return beamclaw.E("session", beamclaw.KindUnavailable, "another node took the session over", err)
	}
	if err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	if c.created {
		b.num.Add(1)
	}
	jc := jsChange{Index: c.index, Resp: c.resp}
	if err := b.putSide(ctx, jc); err != nil {
		return err
	}
	if len(c.usage) > 0 && b.ledger != nil && b.db != nil {
		if err := b.db.Update(func(tx *bolt.Tx) error { return b.ledger.Put(tx, c.usage) }); err != nil {
			return fmt.Errorf("usage of session %s: %w", id, err)
		}
	}
	b.mu.Lock()
	if c.reset || cl.first == "" {
		cl.first = firstUser(c.msgs)
	}
	first := cl.first
	b.mu.Unlock()
	v, err := json.Marshal(jsSummary{Rec: c.rec, First: first})
	if err != nil {
		return err
	}
	return b.sums.Put(ctx, id, v)
}

// dropClaim forgets a claim that is no longer this node's and stops the
// session here.
func (b *jsBackend) dropClaim(id string) {
	b.mu.Lock()
	_, ok := b.claims[id]
	delete(b.claims, id)
	b.mu.Unlock()
	if ok {
		b.node.Stats().LeaseMoves.Add(1)
	}
	if ok && b.lost != nil {
		b.lost(id)
	}
}

// putSide writes what a change holds for the buckets: thread index
// entries (and their user's mark) and a response.
func (b *jsBackend) putSide(ctx context.Context, c jsChange) error {
	for k, thread := range c.Index {
		if err := b.threads.Put(ctx, k, []byte(thread)); err != nil {
			return err
		}
		if i := strings.LastIndexByte(k, 0); i > 0 { // threaded(threadPrefix) reads this mark
			if err := b.threads.Put(ctx, k[:i+1], []byte("1")); err != nil {
				return err
			}
		}
	}
	if c.Resp != nil {
		v, err := json.Marshal(c.Resp)
		if err != nil {
			return err
		}
		return b.resps.Put(ctx, c.Resp.ID, v)
	}
	return nil
}

func (b *jsBackend) writable() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.failed
}

// keep renews this node's claims every third of a lease; a claim that
// could not be renewed within a lease is lost, and its session stops
// here at once.
func (b *jsBackend) keep(ctx context.Context) error {
	ttl := b.node.LeaseTTL()
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		b.mu.Lock()
		held := make(map[string]*claim, len(b.claims))
		for id, c := range b.claims {
			held[id] = c
		}
		b.mu.Unlock()
		for id, c := range held {
			rctx, cancel := context.WithTimeout(ctx, ttl/3)
			err := b.leases.Renew(rctx, c.lease)
			cancel()
			switch {
			case err == nil:
				c.renewed = time.Now()
			case errors.Is(err, cluster.ErrLost) || time.Since(c.renewed) > cluster.Stale(ttl):
				b.dropClaim(id)
			}
		}
	}
}
