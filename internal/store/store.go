package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrInUse is returned by Open when another process holds the file.
var ErrInUse = errors.New("database in use by another beamclaw")

// Options tunes Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock (default 1 s).
	LockTimeout time.Duration
	// PIDFile, when set, is read to name the process holding the lock.
	PIDFile string
	// ReadOnly opens the file for reading only (shared lock).
	ReadOnly bool
	// Logger receives the one ERROR line when writes start failing.
	Logger *slog.Logger
	// QuickCheckBytes is the size up to which Open checks every page before
	// it returns (default 64 MiB); a larger file gets a check of its bucket
	// roots at Open and the full check in the background, its writes held
	// until that passes.
	QuickCheckBytes int64
}

// DB is the open store.
type DB struct {
	bolt   *bolt.DB
	path   string
	gc     *committer
	health health
	// checked is closed once the background check of a large file has
	// ended (at once for a file checked whole at Open); writes wait on it.
	checked chan struct{}
	repl    replication // cluster mode: the areas' log (area.go)
	alone   bool        // a daemon without cluster mode: areas are this file's own
	areaMu  sync.Mutex
	areas   map[string]*Area
}

// Open opens (creating if needed) the bbolt file at path. Each package
// that keeps state creates its own buckets (Buckets) when it is built.
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = time.Second
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := preflight(path); err != nil {
		return nil, err
	}
	warm(path)
	b, err := openBolt(path, opts)
	if errors.Is(err, berrors.ErrTimeout) {
		if pid := holder(opts.PIDFile); pid != "" {
			return nil, fmt.Errorf("open %s: %w (pid %s)", path, ErrInUse, pid)
		}
		return nil, fmt.Errorf("open %s: %w", path, ErrInUse)
	}
	if errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) || errors.Is(err, berrors.ErrVersionMismatch) {
		return nil, damaged(path, err.Error())
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.QuickCheckBytes <= 0 {
		opts.QuickCheckBytes = quickCheckBytes
	}
	db := &DB{bolt: b, path: path, health: health{log: opts.Logger}, checked: make(chan struct{})}
	db.gc = newCommitter(b, db.panicked)
	check := db.Check
	fi, err := os.Stat(path)
	large := err == nil && fi.Size() > opts.QuickCheckBytes
	if large {
		check = db.checkRoots
	}
	if err := check(); err != nil {
		_ = b.Close()
		return nil, err
	}
	if !large {
		close(db.checked)
		return db, nil
	}
	go func() { // the rest of a large file; writes wait for it
		defer close(db.checked)
		if err := db.Check(); err != nil {
			db.markDamaged(err)
		}
	}()
	return db, nil
}

// openBolt opens the file, turning a panic of bbolt on a damaged file
// into an error.
func openBolt(path string, opts Options) (b *bolt.DB, err error) {
	defer func() {
		if v := recover(); v != nil {
			b, err = nil, damaged(path, fmt.Sprintf("bbolt cannot open it (%v)", v))
		}
	}()
	return bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.LockTimeout, ReadOnly: opts.ReadOnly})
}

func holder(pidFile string) string {
	if pidFile == "" {
		return ""
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if _, err := strconv.Atoi(s); err != nil {
		return ""
	}
	return s
}

// Checked waits until the file's check has ended (at once unless Open
// left the rest of a large file to the background) and returns the
// damage it found, if any: the daemon serves nothing before.
func (db *DB) Checked(ctx context.Context) error {
	select {
	case <-db.checked:
		return db.health.damage()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Path is the file's path.
func (db *DB) Path() string { return db.path }

// Close closes the file. The daemon calls it last, after the tree stopped.
func (db *DB) Close() error {
	db.repl.close()
	<-db.checked // a background check reads the file to its end
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// Buckets creates the named top-level buckets when they do not exist.
// A package calls it once for the buckets it owns. When they all exist
// (every start but the first) nothing is written: a commit, even an
// empty one, costs two fdatasyncs.
func (db *DB) Buckets(names ...string) error {
	missing := false
	if err := db.View(func(tx *bolt.Tx) error {
		for _, name := range names {
			missing = missing || tx.Bucket([]byte(name)) == nil
		}
		return nil
	}); err != nil {
		return fmt.Errorf("buckets: %w", err)
	}
	if !missing {
		return nil
	}
	return db.Update(func(tx *bolt.Tx) error {
		for _, name := range names {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
		}
		return nil
	})
}

// Update runs fn in a read-write transaction and returns once it is
// committed and synced. Concurrent calls share one commit (one fsync);
// a lone call commits at once, without bbolt Batch's timer. fn may run
// more than once (when a shared transaction fails it is retried alone),
// so it must only change the transaction.
func (db *DB) Update(fn func(*bolt.Tx) error) error {
	<-db.checked
	if err := db.health.damage(); err != nil {
		return writeError(err)
	}
	var fnErr error
	err := db.gc.do(func(tx *bolt.Tx) error {
		fnErr = fn(tx)
		return fnErr
	})
	if err != nil && fnErr == nil {
		db.health.record(err)
		return writeError(err)
	}
	if err == nil {
		db.health.record(nil)
	}
	return err
}

// View runs fn in a read-only transaction. A panic of bbolt on a page it
// cannot read marks the database damaged and is returned as an error.
func (db *DB) View(fn func(*bolt.Tx) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = writeError(db.panicked(v))
		}
	}()
	return db.bolt.View(fn)
}
