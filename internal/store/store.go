package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrInUse is returned by Open when another process holds the file.
var ErrInUse = errors.New("database in use by another beamclaw")

// Bucket names, one per domain. Packages may create sub-buckets or their
// own buckets below these names.
var (
	BucketMeta        = []byte("meta")
	BucketSessions    = []byte("sessions")
	BucketHistory     = []byte("history")
	BucketPairing     = []byte("pairing")
	BucketMemory      = []byte("memory")
	BucketEmbeddings  = []byte("embeddings")
	BucketJobs        = []byte("jobs")
	BucketA2ATasks    = []byte("a2a_tasks")
	BucketMCPPins     = []byte("mcp_pins")
	BucketChannelSeen = []byte("channel_seen")
)

// AllBuckets are created by Open.
var AllBuckets = [][]byte{
	BucketMeta, BucketSessions, BucketHistory, BucketPairing, BucketMemory,
	BucketEmbeddings, BucketJobs, BucketA2ATasks, BucketMCPPins, BucketChannelSeen,
}

// Options tunes Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock (default 1 s).
	LockTimeout time.Duration
	// PIDFile, when set, is read to name the process holding the lock.
	PIDFile string
	// ReadOnly opens the file for reading only (shared lock).
	ReadOnly bool
}

// DB is the open store.
type DB struct {
	bolt *bolt.DB
	path string
}

// Open opens (creating if needed) the bbolt file at path and makes sure
// every domain bucket exists.
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = time.Second
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:  opts.LockTimeout,
		ReadOnly: opts.ReadOnly,
	})
	if errors.Is(err, berrors.ErrTimeout) {
		if pid := holder(opts.PIDFile); pid != "" {
			return nil, fmt.Errorf("open %s: %w (pid %s)", path, ErrInUse, pid)
		}
		return nil, fmt.Errorf("open %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db := &DB{bolt: b, path: path}
	if !opts.ReadOnly {
		if err := db.Update(func(tx *bolt.Tx) error {
			for _, name := range AllBuckets {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return fmt.Errorf("bucket %s: %w", name, err)
				}
			}
			return nil
		}); err != nil {
			_ = b.Close()
			return nil, err
		}
	}
	return db, nil
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

// Path is the file's path.
func (db *DB) Path() string { return db.path }

// Bolt exposes the handle for packages that manage their own buckets.
func (db *DB) Bolt() *bolt.DB { return db.bolt }

// Close closes the file. The daemon calls it last, after the tree stopped.
func (db *DB) Close() error {
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// Update runs fn in a read-write transaction; when it returns nil the
// change is committed and synced.
func (db *DB) Update(fn func(*bolt.Tx) error) error { return db.bolt.Update(fn) }

// Batch is Update for concurrent writers: bbolt coalesces calls from many
// goroutines into one commit (one fsync). fn may run more than once, so it
// must only touch the transaction. It returns after the commit.
func (db *DB) Batch(fn func(*bolt.Tx) error) error { return db.bolt.Batch(fn) }

// View runs fn in a read-only transaction.
func (db *DB) View(fn func(*bolt.Tx) error) error { return db.bolt.View(fn) }
