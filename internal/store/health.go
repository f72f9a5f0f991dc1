package store

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// health tracks whether the file can be written. A write that fails
// for the file's own sake (a full disk, an I/O error), not because its
// function refused, marks the store failing: one ERROR is logged naming
// the cause, the readiness check reports it, a counter counts every such
// failure, and the next successful write clears it (logged once too).
type health struct {
	log      *slog.Logger
	failures atomic.Uint64
	failing  atomic.Bool // fast path: a success while healthy takes no lock

	mu    sync.Mutex
	cause error // nil while writes succeed
	// damaged is set for good when bbolt could not read a page (it
	// panicked) or the background check failed: writes stop until the
	// file is restored.
	damaged error
}

// damage is the file's damage, or nil.
func (h *health) damage() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.damaged
}

// panicked is what a panic inside a transaction becomes: the file's
// damage when a whole check finds some (bbolt asserting on a page it
// cannot read), marked for good; otherwise a plain error of that
// transaction (a bug in its function), logged, and nothing stops.
func (db *DB) panicked(v any) error {
	if err := db.Check(); err != nil {
		return db.markDamaged(err)
	}
	err := fmt.Errorf("a database transaction panicked, the file checks whole: %v", v)
	db.health.log.Error("a database transaction panicked", "err", err)
	return err
}

// markDamaged records that the file is damaged (v: bbolt's panic value or
// the check's error), logs it once with what to do, and returns the
// error writers and readers get from now on.
func (db *DB) markDamaged(v any) error {
	err, ok := v.(error)
	if !ok || !errors.Is(err, ErrDamaged) {
		err = damaged(db.path, fmt.Sprintf("a page cannot be read (%v)", v))
	}
	h := &db.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.damaged == nil {
		h.log.Error("the database is damaged: writes are stopped and the daemon is not ready; run `beamclaw db check`, then restore a backup (docs/running.md#backups)",
			"err", err)
		h.damaged = err
		h.cause = err
		h.failing.Store(true)
	}
	return h.damaged
}

// record notes the outcome of one write.
func (h *health) record(err error) {
	if err == nil && !h.failing.Load() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.damaged != nil:
		// stays damaged: only a restored file is whole again
	case err != nil:
		h.failures.Add(1)
		if h.cause == nil {
			h.log.Error("the database cannot be written; new messages are refused until a write succeeds", "err", err)
		}
		h.cause = err
		h.failing.Store(true)
	case h.cause != nil:
		h.log.Info("the database can be written again", "after", h.cause.Error())
		h.cause = nil
		h.failing.Store(false)
	}
}

// Writable reports whether the last write succeeded, and its error when
// it did not.
func (db *DB) Writable() (bool, error) {
	db.health.mu.Lock()
	defer db.health.mu.Unlock()
	return db.health.cause == nil, db.health.cause
}

// WriteFailures counts the writes that failed for the file's sake.
func (db *DB) WriteFailures() uint64 { return db.health.failures.Load() }

// Commits counts the write transactions committed since the database was
// opened (Update's group commits: one for many concurrent writers).
func (db *DB) Commits() uint64 { return db.gc.commits.Load() }

// writeError wraps a failed commit as a storage error users can be told
// about (503, "try again"), keeping the cause for logs.
func writeError(err error) error {
	return beamclaw.E("store", beamclaw.KindStorage, "the database cannot be written right now", err)
}
