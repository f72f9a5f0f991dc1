package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// openAt opens the database at path; it is closed when the test ends
// (closing it before is harmless).
func openAt(tb testing.TB, path string) *DB {
	tb.Helper()
	db, err := Open(path, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// reopen closes db and opens the file at path again.
func reopen(tb testing.TB, db *DB, path string) *DB {
	tb.Helper()
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	return openAt(tb, path)
}

func mustOpen(tb testing.TB) *DB {
	tb.Helper()
	db := openAt(tb, filepath.Join(tb.TempDir(), "beamclaw.db"))
	if err := db.Buckets("kv"); err != nil {
		tb.Fatal(err)
	}
	return db
}

// Concurrent writers all land, and one writer's error fails only that
// writer: the shared transaction is retried without it.
func TestGroupCommitIsolatesAFailingWriter(t *testing.T) {
	db := mustOpen(t)
	errBad := errors.New("bad writer")
	const writers = 32
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Update(func(tx *bolt.Tx) error {
				if i == 7 {
					return errBad
				}
				return tx.Bucket([]byte("kv")).Put(fmt.Appendf(nil, "k%02d", i), []byte("v"))
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		switch {
		case i == 7 && !errors.Is(err, errBad):
			t.Errorf("the failing writer got %v, want its own error", err)
		case i != 7 && err != nil:
			t.Errorf("writer %d failed with %v", i, err)
		}
	}
	n := 0
	if err := db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket([]byte("kv")).Stats().KeyN
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != writers-1 {
		t.Fatalf("%d keys stored, want %d", n, writers-1)
	}
}

func BenchmarkUpdateParallel(b *testing.B) {
	db := mustOpen(b)
	var mu sync.Mutex
	seq := 0
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			seq++
			k := fmt.Appendf(nil, "k%d", seq)
			mu.Unlock()
			if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("kv")).Put(k, k) }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestKVSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	db := openAt(t, path)
	kv, err := NewKV(db, "pins")
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.Put("a", "1"); err != nil {
		t.Fatal(err)
	}
	if err := kv.Put("b", "2"); err != nil {
		t.Fatal(err)
	}
	if err := kv.Delete("b"); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, path)
	kv, err = NewKV(db, "pins")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := kv.Get("a"); v != "1" || !ok || err != nil {
		t.Errorf("Get(a) = %q %v %v", v, ok, err)
	}
	if _, ok, err := kv.Get("b"); ok || err != nil {
		t.Errorf("Get(b) after Delete = %v %v", ok, err)
	}
}
