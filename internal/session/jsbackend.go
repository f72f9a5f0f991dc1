package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/usage"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// jsTimeout bounds one JetStream operation of the cluster backend.
const jsTimeout = 10 * time.Second

// OwnedElsewhereError is returned when another node of the cluster owns
// the session now: its messages go there (Options.Forward).
type OwnedElsewhereError = cluster.OwnedElsewhereError

// jsBackend keeps sessions on JetStream (cluster mode): each session's
// changes are the records of its journal, written only by the node that
// holds its lease and fenced against any other; summaries, the thread
// index, responses and maintenance marks are replicated buckets.
type jsBackend struct {
	node    *cluster.Node
	leases  *cluster.Leases
	journal *cluster.Journal
	sums    *cluster.Bucket            // id -> jsSummary
	threads *cluster.Bucket            // threadKey -> thread; threadPrefix -> "1"
	resps   *cluster.Bucket            // response id -> Response
	maint   *cluster.Bucket            // id -> maintMark; "last_night" -> date
	lost    func(id string, cl *claim) // a claim was lost: stop its session here at once
	log     *slog.Logger
	// ledger records the runs' model calls (the cluster's, ADR-045).
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
	renewed time.Time // by keep only (one renewal of a claim at a time)
	first   string    // the session's first user message, for its summary (b.mu)
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
	// Snapshot is the whole session, standing for every record before it
	// (dropped once it is stored): a claim of a long journal writes one.
	Snapshot *jsSnapshot `json:"snapshot,omitempty"`
}

// jsSnapshot is a session's whole stored state.
type jsSnapshot struct {
	Rec     record             `json:"rec"`
	History []beamclaw.Message `json:"history,omitempty"`
	Pending []beamclaw.Message `json:"pending,omitempty"`
	Seqs    []uint64           `json:"seqs,omitempty"`
	Seen    []seenID           `json:"seen,omitempty"`
	Outputs []loop.Output      `json:"outputs,omitempty"`
}

// snapshotAfter is how many records a claim reads before it writes the
// session's snapshot in their place.
const snapshotAfter = 200

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
// journal and reads it: from then on only this claim writes the session
// (applyClaimed). Another holder is an *OwnedElsewhereError.
func (b *jsBackend) claimSession(id string) (stored, bool, *claim, error) {
	if err := b.opened(); err != nil {
		return stored{}, false, nil, err
	}
	ctx, cancel := opCtx()
	defer cancel()
	lease, err := b.leases.Acquire(ctx, cluster.SessionLeasePrefix+id)
	var held *cluster.HeldError
	if errors.As(err, &held) {
		return stored{}, false, nil, &OwnedElsewhereError{Session: id, Node: held.Node}
	}
	if err != nil {
		return stored{}, false, nil, unavailable(err)
	}
	// Fenced here: a node that held the session a moment ago wrote after
	// this read; its lease is gone, so the next try reads that write.
	w, recs, err := b.journal.Open(ctx, id, lease)
	if err != nil {
		_ = b.leases.Release(ctx, lease)
		return stored{}, false, nil, unavailable(err)
	}
	st, found, err := b.replay(ctx, id, recs, true)
	if err != nil {
		_ = b.leases.Release(ctx, lease)
		return st, found, nil, err
	}
	if found && len(recs) > snapshotAfter {
		b.snapshot(ctx, w, id, recs, st)
	}
	cl := &claim{lease: lease, w: w, renewed: time.Now(), first: firstUser(st.history)}
	b.mu.Lock()
	b.claims[id] = cl
	b.mu.Unlock()
	if found {
		b.putSummary(ctx, id, st.rec, cl.first) // a node that died between its journal and its summary
	}
	if n := len(recs); n > 0 && recs[n-1].Node != b.node.ID() {
		b.node.Stats().LeaseMoves.Add(1) // taken over from another node
	}
	return st, found, cl, nil
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
		return stored{}, false, unavailable(err)
	}
	return b.replay(ctx, id, recs, false)
}

// replay applies a journal's records in order. The owner also puts back
// what the last record carries for the buckets (a node may have died
// between its journal write and theirs); older records' responses are
// not written again (one deleted since would come back).
func (b *jsBackend) replay(ctx context.Context, id string, recs []cluster.Record, owner bool) (stored, bool, error) {
	mb, last, err := rebuild(id, recs)
	if err != nil {
		return stored{}, false, err
	}
	if owner {
		if err := b.putSide(ctx, last); err != nil {
			return stored{}, false, unavailable(err)
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

// rebuild applies a journal's records in order to a memory backend (a
// snapshot record starts it over); last is the newest record.
func rebuild(id string, recs []cluster.Record) (mb *memBackend, last jsChange, err error) {
	mb = newMemBackend()
	for _, r := range recs {
		if r.Fence {
			continue
		}
		var c jsChange
		if err := json.Unmarshal(r.Data, &c); err != nil {
			return nil, last, fmt.Errorf("session %s: record %d: %w", id, r.Seq, err)
		}
		if s := c.Snapshot; s != nil {
			mb = newMemBackend()
			mb.sessions[id] = &stored{rec: s.Rec, history: s.History, pending: s.Pending, seqs: s.Seqs, seen: s.Seen}
			mb.outs[id] = s.Outputs
		} else if err := mb.apply(id, c.change()); err != nil {
			return nil, last, err
		}
		last = c
	}
	return mb, last, nil
}

func (c jsChange) change() change {
	return change{rec: c.Rec, reset: c.Reset, from: c.From, msgs: c.Msgs, pend: c.Pend, pendSeq: c.PendSeq,
		unpend: c.Unpend, seen: c.Seen, forget: c.Forget, index: c.Index, resp: c.Resp, outputs: c.Outputs}
}

// apply is the backend's write without a lane: only through a claim in
// cluster mode (Manager.apply calls applyClaimed).
func (b *jsBackend) apply(id string, c change) error {
	b.mu.Lock()
	cl := b.claims[id]
	b.mu.Unlock()
	return b.applyClaimed(cl, id, c)
}

// applyClaimed appends the change to the session's journal under cl, the
// writing lane's own claim: refused when that claim is no longer this
// node's current one, or when another node fenced the journal since. Once
// the record is stored the change is committed: the buckets after it are
// repaired by the next claim if their writes fail.
func (b *jsBackend) applyClaimed(cl *claim, id string, c change) error {
	b.mu.Lock()
	current := cl != nil && b.claims[id] == cl
	b.mu.Unlock()
	if !current {
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
		b.dropClaim(id, cl)
		return beamclaw.E("session", beamclaw.KindUnavailable, "another node took the session over", err)
	}
	if err != nil {
		return unavailable(fmt.Errorf("save session %s: %w", id, err))
	}
	if c.created {
		b.num.Add(1)
	}
	if err := b.putSide(ctx, jsChange{Index: c.index, Resp: c.resp}); err != nil {
		b.log.Warn("cluster: a session's index or response was not written (its next claim writes it)", "session_id", id, "err", err)
	}
	if len(c.usage) > 0 && b.ledger != nil {
		if err := b.ledger.Write(ctx, c.usage); err != nil {
			b.log.Warn("cluster: a session's model calls were not recorded", "session_id", id, "err", err)
		}
	}
	b.mu.Lock()
	if c.reset || cl.first == "" {
		cl.first = firstUser(c.msgs)
	}
	first := cl.first
	b.mu.Unlock()
	b.putSummary(ctx, id, c.rec, first)
	return nil
}

// putSummary writes a session's summary; a failure is logged (the next
// claim writes it again).
func (b *jsBackend) putSummary(ctx context.Context, id string, rec record, first string) {
	v, err := json.Marshal(jsSummary{Rec: rec, First: first})
	if err == nil {
		err = b.sums.Put(ctx, id, v)
	}
	if err != nil {
		b.log.Warn("cluster: a session's summary was not written (its next claim writes it)", "session_id", id, "err", err)
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
