package store

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// replication is the DB's link to the cluster's log: the areas'
// followers run until the DB is closed.
type replication struct {
	log    Log
	logger *slog.Logger
	ctx    context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
}

// Replicate makes every Area made from here on a replica of its log
// (cluster mode). Call it before the packages make their areas.
func (db *DB) Replicate(log Log, logger *slog.Logger) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	db.repl.log, db.repl.logger = log, logger
	db.repl.ctx, db.repl.stop = context.WithCancel(context.Background())
}

// follow keeps a's replica up with its log: at once, on every ping of
// the log, and every pollEvery whatever happens.
func (r *replication) follow(a *Area) {
	ping := make(chan struct{}, 1)
	poke := func() {
		select {
		case ping <- struct{}{}:
		default:
		}
	}
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		for r.ctx.Err() == nil {
			if err := r.log.Watch(r.ctx, a.name, poke); err != nil && r.ctx.Err() == nil {
				r.logger.Debug("area watch", "area", a.name, "err", err)
				sleep(r.ctx, time.Second)
			}
		}
	}()
	go func() {
		defer r.wg.Done()
		for {
			ctx, cancel := context.WithTimeout(r.ctx, logTimeout)
			err := a.sync(ctx)
			cancel()
			next := pollEvery
			if err != nil && r.ctx.Err() == nil {
				r.logger.Debug("area catch-up", "area", a.name, "err", err)
				next = time.Second
			}
			select {
			case <-r.ctx.Done():
				return
			case <-ping:
			case <-time.After(next):
			}
		}
	}()
}

func (r *replication) close() {
	if r.stop != nil {
		r.stop()
		r.wg.Wait()
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// catchUp applies the log's records after this replica's newest, in
// batches of one commit each, and reports whether any was applied. A
// first replica of an area that holds what no log has yet (a node that
// ran alone before) offers it as the log's first record. The caller
// holds a.mu.
func (a *Area) catchUp(ctx context.Context) (bool, error) {
	log, any := a.db.repl.log, false
	for {
		var batch []entry
		size, last := 0, a.applied
		for size < maxRecord && len(batch) < 256 {
			seq, data, ok, err := log.Next(ctx, a.name, last)
			if err != nil {
				return any, fmt.Errorf("area %s: read the log: %w", a.name, err)
			}
			if !ok {
				break
			}
			r, err := decodeRecord(data)
			if err != nil {
				return any, fmt.Errorf("area %s: record %d: %w", a.name, seq, err)
			}
			if a.applied == 0 && len(batch) == 0 {
				r.snapshot = true // the log starts here: forget what the replica held
			}
			a.since++
			if r.snapshot {
				a.since = 0
			}
			batch, size, last = append(batch, r), size+len(data), seq
		}
		if len(batch) == 0 {
			if a.applied == 0 {
				return any, a.seed(ctx)
			}
			return any, nil
		}
		if err := a.commit(last, batch...); err != nil {
			return any, err
		}
		any = true
	}
}

// seed offers what this replica holds as the first record of an empty
// log (nothing to offer: nothing is written).
func (a *Area) seed(ctx context.Context) error {
	r, err := a.dump()
	if err != nil || len(r.ops) == 0 {
		return err
	}
	seq, ok, err := a.db.repl.log.Append(ctx, a.name, 0, encodeRecord(r))
	if err != nil || !ok {
		return err // !ok: another node seeded first; the next catch-up reads it
	}
	return a.commit(seq)
}

func (a *Area) dump() (entry, error) {
	var r entry
	err := a.db.View(func(tx *bolt.Tx) error {
		r = dump(tx, a.buckets)
		return nil
	})
	return r, err
}

// snapshot appends the whole area as one record and trims the log before
// it, so that a node joining later reads the area at once rather than
// its every write. An area too large for one record keeps its log.
func (a *Area) snapshot(ctx context.Context) {
	r, err := a.dump()
	if err != nil {
		return
	}
	data := encodeRecord(r)
	if len(data) > maxRecord {
		a.db.repl.logger.Warn("area too large to snapshot; its log keeps every write", "area", a.name, "bytes", len(data))
		a.since = 0
		return
	}
	seq, ok, err := a.db.repl.log.Append(ctx, a.name, a.applied, data)
	if err != nil || !ok {
		return // a later write tries again
	}
	if err := a.commit(seq); err != nil {
		return
	}
	a.since = 0
	if err := a.db.repl.log.Trim(ctx, a.name, seq); err != nil {
		a.db.repl.logger.Warn("area log not trimmed", "area", a.name, "err", err)
	}
}

// sync catches up with the log and tells the OnChange callbacks.
func (a *Area) sync(ctx context.Context) error {
	a.mu.Lock()
	changed, err := a.catchUp(ctx)
	a.mu.Unlock()
	if err != nil {
		return err
	}
	a.once.Do(func() { close(a.synced) })
	if changed {
		a.changes.Add(1)
		for _, fn := range a.callbacks() {
			fn()
		}
	}
	return nil
}
