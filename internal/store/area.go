package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// An Area is the buckets one package owns (the scheduler's jobs and
// runs, pairing, ...), written through one transaction type, Tx. On a
// single node an Area is those buckets of this file and nothing more.
//
// In cluster mode (DB.Replicate) the area's truth is the cluster's log
// and this file its replica (ADR-045): a write transaction runs once
// against the replica without committing, its writes are appended to the
// log only if no other node wrote the area since this replica last read
// it (else it runs again on the newer state), and only then are they
// committed here. Every node applies the records of the others as they
// come, so reads are local. A transaction acknowledged by Update is in a
// quorum of the cluster.

// Log is the cluster's replicated log of the areas' records.
type Log interface {
	// Next returns the area's first record after the sequence after
	// (ok false: none yet).
	Next(ctx context.Context, area string, after uint64) (seq uint64, data []byte, ok bool, err error)
	// Append stores data as the area's next record if its newest record
	// is still after (appended false: another node wrote since). It
	// returns once a quorum stored it.
	Append(ctx context.Context, area string, after uint64, data []byte) (seq uint64, appended bool, err error)
	// Trim drops the area's records before the sequence before.
	Trim(ctx context.Context, area string, before uint64) error
	// Watch calls fn whenever another node may have appended to the area,
	// until ctx ends.
	Watch(ctx context.Context, area string, fn func()) error
}

// appliedBucket maps an area's name to the sequence of the newest record
// of its log applied here.
const appliedBucket = "store_areas_applied"

// Replication timings: a write's wait for the log, the snapshot that
// trims a log, the watcher's look at the log when nothing pinged it.
const (
	logTimeout    = 10 * time.Second
	snapshotEvery = 500
	pollEvery     = 5 * time.Second
	maxRecord     = 8<<20 - 64<<10 // the cluster's largest message, less its headers
	maxConflicts  = 100
)

// Area is a package's buckets; see above.
type Area struct {
	db      *DB
	name    string
	buckets []string
	local   bool // LocalArea: never replicated

	mu      sync.Mutex // this node's writers, and the replay of the log
	applied uint64     // newest record of the log in this replica
	since   int        // records after the newest snapshot known here
	synced  chan struct{}
	once    sync.Once
	cbMu    sync.Mutex // changed: never held across the log, so OnChange never waits for it
	changed []func()
	changes atomic.Uint64 // Changes
}

// Area returns the area name of the buckets given (creating them); the
// same Area for the same name. In cluster mode its replica follows the
// log from here on. Opened without cluster mode (DB.Replicate), an area
// that was a cluster's replica is read-only (ErrClusterArea) unless the
// process said it runs the file alone (DB.Alone).
func (db *DB) Area(name string, buckets ...string) (*Area, error) {
	return db.area(false, name, buckets)
}

// LocalArea is an area that stays this file's own in cluster mode too:
// state that belongs to the node (what it alone received and works on).
func (db *DB) LocalArea(name string, buckets ...string) (*Area, error) {
	return db.area(true, name, buckets)
}

func (db *DB) area(local bool, name string, buckets []string) (*Area, error) {
	db.areaMu.Lock()
	defer db.areaMu.Unlock()
	if a := db.areas[name]; a != nil {
		if a.local != local && db.repl.log != nil { // alone, both are this file's
			return nil, fmt.Errorf("area %s: opened both as the cluster's and as this node's", name)
		}
		if !slices.Equal(a.buckets, buckets) {
			return nil, fmt.Errorf("area %s: opened with buckets %v and %v", name, a.buckets, buckets)
		}
		return a, nil
	}
	if err := db.Buckets(append([]string{appliedBucket}, buckets...)...); err != nil {
		return nil, err
	}
	a := &Area{db: db, name: name, buckets: buckets, local: local, synced: make(chan struct{})}
	if err := db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket([]byte(appliedBucket)).Get([]byte(name)); len(v) == 8 {
			a.applied = binary.BigEndian.Uint64(v)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("area %s: %w", name, err)
	}
	switch {
	case local:
		a.applied = 0 // a former cluster area of this name is this node's now
		close(a.synced)
	case db.repl.log != nil:
		db.repl.follow(a)
	case a.applied > 0 && db.alone:
		if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte(appliedBucket)).Delete([]byte(name)) }); err != nil {
			return nil, fmt.Errorf("area %s: %w", name, err)
		}
		a.applied = 0
		close(a.synced)
	default:
		close(a.synced)
	}
	if db.areas == nil {
		db.areas = map[string]*Area{}
	}
	db.areas[name] = a
	return a, nil
}

// ErrClusterArea is a write, without the daemon, to an area this file
// keeps as a replica of a cluster's state: it would reach no other node.
var ErrClusterArea = errors.New("this node's state is its cluster's: change it through the running daemon")

// Alone declares that this process runs the file by itself (a daemon
// without cluster mode): areas that were replicas of a cluster's log
// become this file's own again. Call it before the packages make their
// areas.
func (db *DB) Alone() { db.alone = true }

// OnChange registers fn, called after records of other nodes changed the
// area here (cluster mode; never on a single node).
func (a *Area) OnChange(fn func()) {
	a.cbMu.Lock()
	a.changed = append(a.changed, fn)
	a.cbMu.Unlock()
}

// callbacks are the OnChange functions registered so far.
func (a *Area) callbacks() []func() {
	a.cbMu.Lock()
	defer a.cbMu.Unlock()
	return a.changed
}

// Changes counts the times records of other nodes changed the area here
// (cluster mode; always 0 on a single node). A copy of the area's
// content made after reading the count is stale once the count differs.
func (a *Area) Changes() uint64 { return a.changes.Load() }

// View runs fn in a read transaction of this replica. In cluster mode
// the first read waits until the replica has caught up with the log once.
func (a *Area) View(fn func(*Tx) error) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.db.View(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

// ViewLatest is View after this replica caught up with the log (cluster
// mode: a round trip), for a read that must see a write another node
// acknowledged a moment ago (a link code typed right after it was shown
// elsewhere).
func (a *Area) ViewLatest(fn func(*Tx) error) error {
	if err := a.CatchUp(); err != nil {
		return err
	}
	return a.View(fn)
}

// CatchUp brings this replica up to the log (cluster mode: a round trip;
// nothing on a single node or for a local area).
func (a *Area) CatchUp() error {
	if a.db.repl.log == nil || a.local {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), logTimeout)
	defer cancel()
	return a.sync(ctx)
}

// Peek runs fn in a read transaction of this replica as it is now,
// without waiting for its first catch-up: for a package that mirrors its
// area in memory at start (and again on OnChange), when a daemon waiting
// for its cluster's quorum must start all the same.
func (a *Area) Peek(fn func(*Tx) error) error {
	return a.db.View(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

// Update runs fn in a read-write transaction and returns once its writes
// are committed: to this file, and in cluster mode first to a quorum of
// the log. fn may run more than once, so it must only change the
// transaction. An error of fn stands only once fn ran on a replica up to
// date with the log: one behind it may refuse what another node's write
// a moment ago allowed (a budget's hold given back).
func (a *Area) Update(fn func(*Tx) error) error {
	if a.db.repl.log == nil || a.local {
		if a.applied > 0 {
			return fmt.Errorf("area %s: %w", a.name, ErrClusterArea)
		}
		return a.db.Update(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
	}
	if err := a.ready(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), logTimeout)
	defer cancel()
	others := false // records of other nodes applied meanwhile
	a.mu.Lock()
	defer func() {
		a.mu.Unlock()
		if others {
			a.changes.Add(1)
			for _, fn := range a.callbacks() {
				fn()
			}
		}
	}()
	caught := false // fn's error was decided after a catch-up
	for range maxConflicts {
		var rec recorder
		if err := a.db.dry(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx, rec: &rec}) }); err != nil {
			if caught {
				return err
			}
			caught = true
			read, cerr := a.catchUp(ctx)
			others = others || read
			if cerr != nil || !read { // nothing newer: fn decided on the newest state
				return err
			}
			continue
		}
		if len(rec.ops) == 0 {
			return nil
		}
		data := encodeRecord(entry{ops: rec.ops})
		if len(data) > maxRecord {
			return fmt.Errorf("area %s: one write of %d bytes is more than the cluster carries (%d)", a.name, len(data), maxRecord)
		}
		seq, ok, err := a.db.repl.log.Append(ctx, a.name, a.applied, data)
		if err != nil {
			return fmt.Errorf("area %s: %w", a.name, err)
		}
		if !ok { // another node wrote first: read it, then run fn again
			read, err := a.catchUp(ctx)
			others = others || read
			if err != nil {
				return err
			}
			continue
		}
		if err := a.commit(seq, entry{ops: rec.ops}); err != nil {
			return err
		}
		a.since++
		if a.since >= snapshotEvery {
			a.snapshot(ctx)
		}
		return nil
	}
	return fmt.Errorf("area %s: %d writers of other nodes came first each time", a.name, maxConflicts)
}

// commit applies records up to seq to this replica, the newest applied
// sequence with them.
func (a *Area) commit(seq uint64, recs ...entry) error {
	err := a.db.Update(func(tx *bolt.Tx) error {
		for _, r := range recs {
			if err := r.apply(tx, a.buckets); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte(appliedBucket)).Put([]byte(a.name), binary.BigEndian.AppendUint64(nil, seq))
	})
	if err != nil {
		return fmt.Errorf("area %s: apply record %d: %w", a.name, seq, err)
	}
	a.applied = seq
	return nil
}

// ready waits (bounded) for the replica's first catch-up.
func (a *Area) ready() error {
	select {
	case <-a.synced:
		return nil
	default:
	}
	select {
	case <-a.synced:
		return nil
	case <-time.After(logTimeout):
		return fmt.Errorf("area %s: %w", a.name, ErrNotReplicated)
	}
}

// ErrNotReplicated is a cluster-mode read before the replica could read
// the cluster's log (no quorum yet).
var ErrNotReplicated = errors.New("the cluster's state cannot be read yet (no quorum?)")

// dry runs fn in a read-write transaction that is rolled back: what it
// would write, recorded, without writing it.
func (db *DB) dry(fn func(*bolt.Tx) error) (err error) {
	<-db.checked
	if err := db.health.damage(); err != nil {
		return writeError(err)
	}
	defer func() {
		if v := recover(); v != nil {
			err = writeError(db.panicked(v))
		}
	}()
	tx, err := db.bolt.Begin(true)
	if err != nil {
		return writeError(err)
	}
	defer func() { _ = tx.Rollback() }()
	return fn(tx)
}
