package session

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// A cluster node's claims on the sessions live on it: given back, lost,
// renewed.

// unclaim gives cl's lease up (its lane hibernated, was deleted, stopped
// or never came to be), unless a newer claim took its place.
func (b *jsBackend) unclaim(id string, cl *claim) {
	if cl == nil {
		return
	}
	b.mu.Lock()
	if b.claims[id] == cl {
		delete(b.claims, id)
	}
	b.mu.Unlock()
	ctx, cancel := opCtx()
	defer cancel()
	_ = b.leases.Release(ctx, cl.lease)
}

// dropClaim forgets cl, no longer this node's, and stops its lane here.
func (b *jsBackend) dropClaim(id string, cl *claim) {
	b.mu.Lock()
	ok := b.claims[id] == cl
	if ok {
		delete(b.claims, id)
	}
	b.mu.Unlock()
	if ok {
		b.node.Stats().LeaseMoves.Add(1)
		if b.lost != nil {
			b.lost(id, cl)
		}
	}
}

// keep renews this node's claims every third of a lease, many at once. A
// claim not renewed for two thirds of a lease is lost (cluster.Stale):
// its session stops here at once, before the server can give the lease
// to another node.
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
		b.renewAll(ctx, held, ttl)
	}
}

// renewAll renews held, keepRenewers at a time, each within what is left
// of its claim's life.
func (b *jsBackend) renewAll(ctx context.Context, held map[string]*claim, ttl time.Duration) {
	sem := make(chan struct{}, keepRenewers)
	var wg sync.WaitGroup
	for id, c := range held {
		left := time.Until(c.renewed.Add(cluster.Stale(ttl)))
		if left <= 0 {
			b.dropClaim(id, c)
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			rctx, cancel := context.WithTimeout(ctx, min(ttl/3, left))
			err := b.leases.Renew(rctx, c.lease)
			cancel()
			switch {
			case err == nil:
				c.renewed = time.Now()
			case errors.Is(err, cluster.ErrLost) || time.Since(c.renewed) > cluster.Stale(ttl):
				b.dropClaim(id, c)
			}
		}()
	}
	wg.Wait()
}

// keepRenewers is how many lease renewals run at once.
const keepRenewers = 32

// snapshot writes the session's whole state as its journal's newest
// record and drops the ones before it, so the next claim reads one record
// and what came after. A failure leaves the journal as it was (logged).
func (b *jsBackend) snapshot(ctx context.Context, w *cluster.Writer, id string, recs []cluster.Record, st stored) {
	mb, _, err := rebuild(id, recs)
	var outs []loop.Output
	if err == nil {
		outs, err = mb.outputs(id)
	}
	if err == nil {
		var data []byte
		data, err = json.Marshal(jsChange{Rec: st.rec, Snapshot: &jsSnapshot{Rec: st.rec, History: st.history,
			Pending: st.pending, Seqs: st.seqs, Seen: st.seen, Outputs: outs}})
		if err == nil {
			err = w.Snapshot(ctx, data)
		}
	}
	if err != nil {
		b.log.Warn("cluster: a session's journal was not trimmed", "session_id", id, "err", err)
	}
}

// owner is the node that holds session id's lease now (false: none).
func (b *jsBackend) owner(ctx context.Context, id string) (string, bool) {
	if err := b.opened(); err != nil {
		return "", false
	}
	l, ok, err := b.leases.Holder(ctx, cluster.SessionLeasePrefix+id)
	if err != nil || !ok {
		return "", false
	}
	return l.Node, true
}
