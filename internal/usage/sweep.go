package usage

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// The sweep of the cluster's holds (shared.go): holds whose calls can
// never settle go, and the counts of periods that ended.

// KeepHolds sweeps the cluster's holds every sweepEvery until ctx ends
// (cluster mode; nothing to do on a single node): alive names the nodes
// that answer now, and a node missing from two answers in a row is gone
// (one slow answer does not drop a live node's calls).
func (b *Budgets) KeepHolds(ctx context.Context, alive func(context.Context) map[string]bool, log *slog.Logger) error {
	if b.shared == nil {
		<-ctx.Done()
		return nil
	}
	next := b.clock.After(0)
	var prev map[string]bool // the last answer: a node is gone once missing from two in a row
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-next:
		}
		var judge map[string]bool                      // nil: judge none gone (earlier lives of this node go all the same)
		if nodes := alive(ctx); nodes[b.shared.node] { // an answer without this node is no answer
			if prev != nil {
				judge = maps.Clone(nodes)
				maps.Copy(judge, prev)
			}
			prev = nodes
		}
		if err := b.Sweep(judge); err != nil && ctx.Err() == nil {
			log.LogAttrs(ctx, slog.LevelWarn, "usage: budget holds not swept", slog.Any("err", err))
		}
		next = b.clock.After(sweepEvery)
	}
}

// Sweep drops the holds whose call can never settle (see above): those
// of this node's earlier lives, and those of the nodes missing from alive
// (nil: judge no other node gone). Once a day the counts of periods that
// ended go too, with the settles still pending.
func (b *Budgets) Sweep(alive map[string]bool) error {
	sh := b.shared
	if sh == nil {
		return nil // a single node's reservations are in memory
	}
	now := b.clock.Now().UTC()
	day := periodOf(PeriodDay, now)
	sh.mu.Lock()
	prune := sh.pruned != day
	sh.mu.Unlock()
	err := sh.update(func(tx *store.Tx) error {
		if err := sh.dropHolds(tx, alive, now); err != nil {
			return err
		}
		if prune {
			return b.pruneCounts(tx, now)
		}
		return nil
	})
	if err == nil && prune {
		sh.mu.Lock()
		sh.pruned = day
		sh.mu.Unlock()
	}
	return err
}

func (sh *shared) dropHolds(tx *store.Tx, alive map[string]bool, now time.Time) error {
	holds := tx.Bucket(bucketHolds)
	var gone, dropped []string
	var unreadable [][]byte
	recs := map[string]holdRecord{}
	err := holds.ForEach(func(k, v []byte) error {
		var rec holdRecord
		if err := store.Decode(v, &rec); err != nil {
			unreadable = append(unreadable, slices.Clone(k)) // it can never settle either
			return nil
		}
		switch {
		case rec.Node == sh.node && rec.Life != sh.life:
			gone = append(gone, string(k))
		case !rec.Dropped.IsZero() && now.Sub(rec.Dropped) > droppedKeep:
			gone = append(gone, string(k)) // its estimate went when it was dropped
		case rec.Dropped.IsZero() && rec.Node != sh.node && alive != nil && !alive[rec.Node]:
			dropped, recs[string(k)] = append(dropped, string(k)), rec
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := deleteKeys(holds, unreadable); err != nil {
		return err
	}
	for _, id := range gone {
		if err := (finish{id: id}).apply(tx); err != nil {
			return err
		}
	}
	for _, id := range dropped {
		if err := (finish{id: id}).apply(tx); err != nil { // its estimate off the counts
			return err
		}
		rec := recs[id]
		rec.Dropped = now
		if err := putHold(holds, id, rec); err != nil {
			return err
		}
	}
	return nil
}

// deleteKeys deletes keys (copies: collected in a ForEach of b) from b.
func deleteKeys(b *store.Bucket, keys [][]byte) error {
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// pruneCounts deletes the counts of periods that ended.
func (b *Budgets) pruneCounts(tx *store.Tx, now time.Time) error {
	counts := tx.Bucket(bucketCounts)
	var old [][]byte
	err := counts.ForEach(func(k, _ []byte) error {
		parts := strings.SplitN(string(k), "\x00", 4) // scope, period, its instance, id
		if len(parts) != 4 || parts[2] != periodOf(parts[1], now) {
			old = append(old, slices.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return deleteKeys(counts, old)
}
