package usage

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// In cluster mode the budgets' counts are the cluster's (ADR-049): the
// area "budgets" holds what each budget's period has spent and reserved
// across the cluster, and one hold per call in flight on any node. A
// reservation reads the counts and adds its estimate in one transaction
// of the area, which the cluster's log orders (ADR-045): calls in flight
// on every node count, and N calls on N nodes can never overspend. A
// call's settle turns its hold's estimate into what it used.
//
// A hold whose call can never settle goes: one of an earlier life of
// this node at once, one of a node that stopped answering is marked
// dropped (its estimate no longer counts; a late settle from a node that
// was only cut off adds what it used).
var (
	bucketCounts = []byte("usage_budget_counts")
	bucketHolds  = []byte("usage_budget_holds")
)

// Sweep timings: how often holds of gone nodes are looked for, and how
// long a dropped hold waits for a late settle before it goes.
const (
	sweepEvery  = 30 * time.Second
	droppedKeep = 24 * time.Hour
)

// shared is the cluster's side of a node's Budgets.
type shared struct {
	area *store.Area
	node string
	life string // this process: holds of an earlier life never settle
	seq  atomic.Uint64

	mu      sync.Mutex
	pending []finish // settles not yet stored: they go with the next write
	pruned  string   // the UTC day the counts of ended periods last went
}

// holdRecord is one call in flight (its estimate) and the counts it is
// reserved against.
type holdRecord struct {
	Node    string    `json:"node"`
	Life    string    `json:"life"`
	Counts  []string  `json:"counts"`
	Tokens  int64     `json:"tokens"`
	Micro   int64     `json:"micro_usd"`
	At      time.Time `json:"at"`
	Dropped time.Time `json:"dropped,omitzero"` // its node stopped answering
}

// count is one budget count across the cluster: what the calls that
// settled through any node's budgets used, and the estimates of those in
// flight.
type count struct {
	settled, held amount
}

type countRecord struct {
	Tokens     int64 `json:"tokens"`
	Micro      int64 `json:"micro_usd"`
	HeldTokens int64 `json:"held_tokens"`
	HeldMicro  int64 `json:"held_micro_usd"`
}

// current is what a budget counts as used: the calls settled (through
// the counts, or recorded in the ledger as this node has read it, spent:
// a node without the budget records calls too), and those in flight.
func (c count) current(spent amount) amount {
	return amount{max(c.settled.tokens, spent.tokens), max(c.settled.micro, spent.micro)}.add(c.held)
}

func newShared(db *store.DB, node string) (*shared, error) {
	area, err := db.Area("budgets", string(bucketCounts), string(bucketHolds))
	if err != nil {
		return nil, fmt.Errorf("usage budgets: %w", err)
	}
	var life [8]byte
	_, _ = rand.Read(life[:])
	return &shared{area: area, node: node, life: hex.EncodeToString(life[:])}, nil
}

// update runs fn in a transaction of the area, after the settles still
// pending (stored with it, or kept for the next write). With settles
// pending the replica first catches up with the log: a pending settle's
// hold may be there only (a reservation whose acknowledgement was lost),
// and run against a replica without it the settle would change nothing
// and be forgotten, its estimate held for the rest of this life.
func (sh *shared) update(fn func(tx *store.Tx) error) error {
	sh.mu.Lock()
	ops := sh.pending
	sh.pending = nil
	sh.mu.Unlock()
	var err error
	if len(ops) > 0 {
		err = sh.area.CatchUp()
	}
	if err == nil {
		err = sh.area.Update(func(tx *store.Tx) error {
			for _, op := range ops {
				if err := op.apply(tx); err != nil {
					return err
				}
			}
			return fn(tx)
		})
	}
	if err != nil {
		sh.mu.Lock()
		sh.pending = append(ops, sh.pending...)
		sh.mu.Unlock()
	}
	return err
}

// countKey names what k counts across the cluster: its scope, period and
// id (two budgets of one scope and period count the same calls).
func (b *Budgets) countKey(k holdKey) string {
	bg := b.list[k.budget]
	return bg.Scope + "\x00" + bg.Period + "\x00" + k.period + "\x00" + k.id
}

// readCount is the count of key (ok false: the cluster has none yet).
func readCount(counts *store.Bucket, key string) (c count, ok bool) {
	var r countRecord
	if v := counts.Get([]byte(key)); v == nil || store.Decode(v, &r) != nil {
		return count{}, false
	}
	return count{amount{r.Tokens, r.Micro}, amount{r.HeldTokens, r.HeldMicro}}, true
}

func putCount(counts *store.Bucket, key string, c count) error {
	v, err := store.Encode(countRecord{Tokens: c.settled.tokens, Micro: c.settled.micro, HeldTokens: c.held.tokens, HeldMicro: c.held.micro})
	if err != nil {
		return err
	}
	return counts.Put([]byte(key), v)
}

// reserveShared is reserveLocked against the cluster's counts: the
// estimate is added to every count of h and h is stored, or nothing is.
func (b *Budgets) reserveShared(h *hold, s Spend, priced bool, now time.Time) ([]string, error) {
	sh := b.shared
	h.id = sh.life + "." + strconv.FormatUint(sh.seq.Add(1), 10)
	var v verdict
	err := sh.update(func(tx *store.Tx) error {
		counts := tx.Bucket(bucketCounts)
		b.mu.Lock()
		defer b.mu.Unlock()
		b.pruneLocked(now)
		var err error
		v, err = b.decideLocked(h, s, priced, now, func(k holdKey) amount {
			c, _ := readCount(counts, b.countKey(k))
			return c.current(b.spent[k])
		})
		if err != nil {
			return err
		}
		rec := holdRecord{Node: sh.node, Life: sh.life, Tokens: h.est.tokens, Micro: h.est.micro, At: now}
		for _, k := range h.keys {
			key := b.countKey(k)
			if !slices.Contains(rec.Counts, key) {
				rec.Counts = append(rec.Counts, key)
				c, _ := readCount(counts, key)
				c.held = c.held.add(h.est)
				if err := putCount(counts, key, c); err != nil {
					return err
				}
			}
		}
		return putHold(tx.Bucket(bucketHolds), h.id, rec)
	})
	if beamclaw.KindOf(err) == beamclaw.KindBudget {
		return nil, err
	}
	if err != nil {
		sh.keep(finish{id: h.id}) // stored after all (an acknowledgement lost): it goes with the next write
		return nil, beamclaw.E("usage.Reserve", beamclaw.KindUnavailable, "the cluster's budget counts cannot be written, so the call is refused", err)
	}
	b.mu.Lock()
	b.markLocked(v)
	b.mu.Unlock()
	h.model = v.model
	return v.warnings, nil
}

// finish is a call's end: its hold goes and its counts hold what it used
// rather than its estimate. Applied twice it changes nothing more (the
// hold is gone).
type finish struct {
	id   string
	used amount
}

func (f finish) apply(tx *store.Tx) error {
	holds, counts := tx.Bucket(bucketHolds), tx.Bucket(bucketCounts)
	v := holds.Get([]byte(f.id))
	if v == nil {
		return nil
	}
	var rec holdRecord
	if err := store.Decode(v, &rec); err != nil {
		return fmt.Errorf("budget hold %s: %w", f.id, err)
	}
	for _, key := range rec.Counts {
		c, ok := readCount(counts, key)
		if !ok { // a period that ended and went
			continue
		}
		if rec.Dropped.IsZero() { // else its estimate was taken off when it was dropped
			c.held = c.held.sub(amount{rec.Tokens, rec.Micro})
		}
		c.settled = c.settled.add(f.used)
		if err := putCount(counts, key, c); err != nil {
			return err
		}
	}
	return holds.Delete([]byte(f.id))
}

// finishShared stores the end of h's call; when the cluster cannot take
// it now, it goes with this node's next write (its estimate counts
// meanwhile: a budget errs on the safe side).
func (b *Budgets) finishShared(h *hold, used amount) {
	f := finish{id: h.id, used: used}
	if err := b.shared.update(f.apply); err != nil {
		b.shared.keep(f)
	}
}

// keep queues f for this node's next write of the counts.
func (sh *shared) keep(f finish) {
	sh.mu.Lock()
	sh.pending = append(sh.pending, f)
	sh.mu.Unlock()
}

func putHold(holds *store.Bucket, id string, rec holdRecord) error {
	data, err := store.Encode(rec)
	if err != nil {
		return err
	}
	return holds.Put([]byte(id), data)
}
