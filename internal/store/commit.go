package store

import (
	"errors"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// errLead tells a waiting writer that it now leads the next group commit.
var errLead = errors.New("lead the next commit")

// committer is a group commit over bbolt: a writer that finds no commit
// in progress commits at once (no batching delay at low load); writers
// arriving meanwhile queue up and the first of them commits the whole
// queue in one transaction (one fsync for many writers at high load).
// Unlike bolt.DB.Batch it never waits for a timer (bbolt's Batch adds a
// 10 ms delay at concurrency 1).
type committer struct {
	db *bolt.DB
	// panicked turns a panic of bbolt (a page it cannot read) into the
	// error every writer of the transaction gets; it marks the file damaged.
	panicked func(v any) error
	mu       sync.Mutex // guards queue and busy
	queue    []*commitOp
	busy     bool
	// commits counts the transactions committed (each is one or two
	// fdatasyncs, however many writers it carried).
	commits atomic.Uint64
}

type commitOp struct {
	fn   func(*bolt.Tx) error
	done chan error
}

func newCommitter(db *bolt.DB, panicked func(v any) error) *committer {
	return &committer{db: db, panicked: panicked}
}

// update is one bbolt transaction; a panic inside it (bbolt asserting on
// a damaged page) is an error, so that the committer goes on.
func (c *committer) update(fn func(*bolt.Tx) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = c.panicked(v)
		}
	}()
	return c.db.Update(fn)
}

// do runs fn in a read-write transaction shared with concurrent writers and
// returns once that transaction committed. fn may run more than once (when
// a transaction shared with a failing writer is retried alone), so it must
// be idempotent.
func (c *committer) do(fn func(*bolt.Tx) error) error {
	op := &commitOp{fn: fn, done: make(chan error, 1)}
	c.mu.Lock()
	c.queue = append(c.queue, op)
	if c.busy {
		c.mu.Unlock()
		if err := <-op.done; err != errLead {
			return err
		}
		c.mu.Lock()
	}
	c.busy = true
	batch := c.queue
	c.queue = nil
	c.mu.Unlock()

	c.commit(batch)

	c.mu.Lock()
	if len(c.queue) > 0 {
		c.queue[0].done <- errLead
	} else {
		c.busy = false
	}
	c.mu.Unlock()
	return <-op.done
}

// commit runs a batch in one transaction; if it fails, each op runs alone
// so one writer's error does not fail the others.
func (c *committer) commit(batch []*commitOp) {
	err := c.update(func(tx *bolt.Tx) error {
		for _, op := range batch {
			if err := op.fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		c.commits.Add(1)
	}
	if err == nil || len(batch) == 1 || errors.Is(err, ErrDamaged) {
		for _, op := range batch {
			op.done <- err
		}
		return
	}
	for _, op := range batch {
		err := c.update(op.fn)
		if err == nil {
			c.commits.Add(1)
		}
		op.done <- err
	}
}
