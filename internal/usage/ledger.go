package usage

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// bucketLedger holds the entries, keyed by the call's time (big-endian
// Unix nanoseconds) and a sequence number, so that a scan from a time on
// reads only the entries since.
var bucketLedger = []byte("usage_ledger")

// ErrNotWritable: Record wrote nothing because the store refuses writes
// right now (the store has said why, once).
var ErrNotWritable = errors.New("usage ledger: the store refuses writes; calls not recorded")

// Counter is where committed calls are counted
// (obs.Metrics: beamclaw_llm_tokens_total, beamclaw_llm_cost_usd_total).
type Counter interface {
	LLMUsage(provider, model string, in, out, cached int, usd float64)
}

// Ledger is the usage ledger of one database: the area "usage", in
// cluster mode the cluster's (ADR-045). Safe for concurrent use.
type Ledger struct {
	db      *store.DB
	area    *store.Area
	rates   Rates
	counter Counter
	node    string // this node in cluster mode: its entries say so (Entry.Node)
}

// New returns the ledger of db priced by rates; counter may be nil.
func New(db *store.DB, rates Rates, counter Counter) (*Ledger, error) {
	area, err := db.Area("usage", string(bucketLedger)) // no write when it exists: no commit at every start
	if err != nil {
		return nil, fmt.Errorf("usage ledger: %w", err)
	}
	return &Ledger{db: db, area: area, rates: rates, counter: counter}, nil
}

// OfNode makes the ledger a cluster's (cluster mode): its entries name
// node, and budgets count the calls of the other nodes as they come.
func (l *Ledger) OfNode(node string) { l.node = node }

// Entries are the ledger entries of calls a run made, priced.
func (l *Ledger) Entries(a Attribution, calls []beamclaw.LLMCall) []Entry {
	out := make([]Entry, 0, len(calls))
	for _, c := range calls {
		e := Entry{At: c.At.UTC(), Node: l.node, Session: a.Session, User: a.User, Agent: a.Agent, Channel: string(a.Channel), Origin: a.Origin,
			Provider: c.Provider, Model: c.Model, In: c.Usage.PromptTokens, Out: c.Usage.CompletionTokens,
			Cached: c.Usage.CachedTokens, Estimated: c.Estimated}
		e.MicroUSD, e.Priced = l.rates.Price(e.Provider, e.Model, e.In, e.Out, e.Cached)
		out = append(out, e)
	}
	return out
}

// Put writes entries in tx: the caller's own transaction (a turn's group
// commit). Once it committed, the caller reports them with Committed.
func (l *Ledger) Put(tx *bolt.Tx, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	b := tx.Bucket(bucketLedger)
	if b == nil {
		return fmt.Errorf("usage ledger: bucket %s missing", bucketLedger)
	}
	return putEntries(b, entries)
}

// entryBucket is the ledger's bucket, of a turn's bbolt transaction or
// of the area's.
type entryBucket interface {
	NextSequence() (uint64, error)
	Put(k, v []byte) error
}

func putEntries(b entryBucket, entries []Entry) error {
	for i := range entries {
		v, err := json.Marshal(&entries[i])
		if err != nil {
			return fmt.Errorf("usage ledger: encode: %w", err)
		}
		seq, err := b.NextSequence()
		if err != nil {
			return fmt.Errorf("usage ledger: sequence: %w", err)
		}
		if err := b.Put(entryKey(entries[i].At, seq), v); err != nil {
			return fmt.Errorf("usage ledger: put: %w", err)
		}
	}
	return nil
}

func entryKey(at time.Time, seq uint64) []byte {
	var k [16]byte
	binary.BigEndian.PutUint64(k[:8], uint64(at.UnixNano()))
	binary.BigEndian.PutUint64(k[8:], seq)
	return k[:]
}

// Committed counts committed entries in the metrics.
func (l *Ledger) Committed(entries []Entry) {
	if l.counter == nil {
		return
	}
	for _, e := range entries {
		l.counter.LLMUsage(e.Provider, e.Model, e.In, e.Out, e.Cached, float64(e.MicroUSD)/1e6)
	}
}

// Record writes entries in a transaction of their own, for the calls of a
// run whose session stores nothing (a stateless request, a light-context
// heartbeat) or that ended before its next write.
func (l *Ledger) Record(ctx context.Context, entries []Entry) error {
	if err := l.write(ctx, entries); err != nil {
		return err
	}
	l.Committed(entries)
	return nil
}

// Write is Record without counting the entries in the metrics (the
// caller does, Committed): a turn's calls in cluster mode, where the
// session's change goes to its journal and its calls here.
func (l *Ledger) Write(ctx context.Context, entries []Entry) error { return l.write(ctx, entries) }

func (l *Ledger) write(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("usage ledger: %w", err)
	}
	if ok, _ := l.db.Writable(); !ok {
		// The store refuses writes (disk full, said once by the store): a
		// write of the ledger's own must not be the one that finds out
		// whether it is back.
		return ErrNotWritable
	}
	if err := l.area.Update(func(tx *store.Tx) error { return putEntries(tx.Bucket(bucketLedger), entries) }); err != nil {
		return fmt.Errorf("usage ledger: %w", err)
	}
	return nil
}

// Scan calls fn with every entry at or after since, oldest first, until
// fn returns false.
func (l *Ledger) Scan(since time.Time, fn func(Entry) bool) error {
	return l.scan(l.area.View, since, func(e Entry, _ uint64) bool { return fn(e) })
}

// scan is Scan through read (View, or Peek: the replica as it is, for a
// start that must not wait for its cluster).
// fn gets each entry's sequence number too (the order it was written in,
// across the cluster).
func (l *Ledger) scan(read func(func(*store.Tx) error) error, since time.Time, fn func(Entry, uint64) bool) error {
	return read(func(tx *store.Tx) error {
		b := tx.Bucket(bucketLedger)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		k, v := c.First()
		if since.After(time.Unix(0, 0)) { // keys are nanoseconds since 1970
			k, v = c.Seek(entryKey(since, 0))
		}
		for ; k != nil; k, v = c.Next() {
			var e Entry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("usage ledger: entry %x: %w", k, err)
			}
			if !fn(e, binary.BigEndian.Uint64(k[8:])) {
				return nil
			}
		}
		return nil
	})
}
