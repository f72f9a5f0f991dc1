package store

import (
	"bytes"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/store/storetest"
)

func breakLeafStartingWith(t *testing.T, path, prefix string) {
	t.Helper()
	storetest.BreakLeaf(t, path, func(k []byte) bool { return bytes.HasPrefix(k, []byte(prefix)) })
}

// A file above the whole-check size whose bucket root is broken is
// refused at Open, like a small one.
func TestLargeFileWithABrokenRootRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	makeDatabase(t, path)
	breakLeafStartingWith(t, path, "k0000-00") // the first leaf: read by checkRoots
	db, err := Open(path, Options{QuickCheckBytes: 1})
	if err == nil {
		_ = db.Close()
		t.Fatal("a large file with a broken bucket root was opened")
	}
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "restore a backup") {
		t.Fatalf("err = %v, want ErrDamaged with the fix", err)
	}
}

// A large file damaged in the middle of a bucket opens (its roots are
// whole); the background check finds the damage before any write lands:
// writes stop, the store is not writable, one ERROR names db check and the
// restore, and a read of the broken page is an error, not a panic.
func TestLargeFileDamagedInsideStopsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	makeDatabase(t, path)
	breakLeafStartingWith(t, path, "k0020")
	var logs syncBuf
	db, err := Open(path, Options{QuickCheckBytes: 1, Logger: newTextLogger(&logs)})
	if err != nil {
		t.Fatalf("the roots are whole, Open should not refuse: %v", err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("records")).Put([]byte("new"), []byte("v")) })
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("a write to a file the check found damaged: %v, want ErrDamaged", err)
	}
	if ok, cause := db.Writable(); ok || !errors.Is(cause, ErrDamaged) {
		t.Errorf("Writable = %v, %v", ok, cause)
	}
	err = db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte("records")).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
		}
		return nil
	})
	if !errors.Is(err, ErrDamaged) {
		t.Errorf("reading the broken page: %v, want ErrDamaged", err)
	}
	if n := strings.Count(logs.String(), "the database is damaged"); n != 1 || !strings.Contains(logs.String(), "beamclaw db check") {
		t.Errorf("%d damage lines logged, want one naming db check:\n%s", n, logs.String())
	}
}

// A panic inside a write is that writer's error and the committer goes
// on; on a file that checks whole it is a bug, not damage: nothing is
// marked, and the next write succeeds.
func TestPanicInAWriteIsAnError(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "b.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(*bolt.Tx) error { panic("a bug in a writer") })
	if err == nil || errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "a bug in a writer") {
		t.Fatalf("a panicking write on a whole file: %v, want its own error, not damage", err)
	}
	if err := db.Update(func(*bolt.Tx) error { return nil }); err != nil {
		t.Fatalf("a write after it: %v", err)
	}
	if ok, cause := db.Writable(); !ok {
		t.Errorf("not writable after a writer's bug: %v", cause)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTextLogger(w *syncBuf) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
