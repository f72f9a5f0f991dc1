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

// Ledger is the usage ledger of one database. Safe for concurrent use.
type Ledger struct {
	db      *store.DB
	rates   Rates
	counter Counter
}

// New returns the ledger of db priced by rates; counter may be nil.
func New(db *store.DB, rates Rates, counter Counter) (*Ledger, error) {
	if err := db.Buckets(string(bucketLedger)); err != nil { // no write when it exists: no commit at every start
		return nil, fmt.Errorf("usage ledger: %w", err)
	}
	return &Ledger{db: db, rates: rates, counter: counter}, nil
}

// Entries are the ledger entries of calls a run made, priced.
func (l *Ledger) Entries(a Attribution, calls []beamclaw.LLMCall) []Entry {
	out := make([]Entry, 0, len(calls))
	for _, c := range calls {
		e := Entry{At: c.At.UTC(), Session: a.Session, User: a.User, Agent: a.Agent, Channel: string(a.Channel), Origin: a.Origin,
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
	if err := l.db.Update(func(tx *bolt.Tx) error { return l.Put(tx, entries) }); err != nil {
		return fmt.Errorf("usage ledger: %w", err)
	}
	l.Committed(entries)
	return nil
}

// Scan calls fn with every entry at or after since, oldest first, until
// fn returns false.
func (l *Ledger) Scan(since time.Time, fn func(Entry) bool) error {
	return l.db.View(func(tx *bolt.Tx) error {
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
			if !fn(e) {
				return nil
			}
		}
		return nil
	})
}
