package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/store/storetest"
	bolt "go.etcd.io/bbolt"
)

// makeDatabase writes enough records to span many pages.
func makeDatabase(tb testing.TB, path string) {
	tb.Helper()
	db, err := Open(path, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.Buckets("records"); err != nil {
		tb.Fatal(err)
	}
	for i := range 40 {
		if err := db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte("records"))
			for j := range 50 {
				if err := b.Put(fmt.Appendf(nil, "k%04d-%02d", i, j), bytes.Repeat([]byte{'v'}, 200)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
}

func TestDamagedDatabaseRefusedUntouched(t *testing.T) {
	for _, d := range storetest.Damages {
		t.Run(d.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "beamclaw.db")
			makeDatabase(t, path)
			d.Apply(t, path)
			before := storetest.Digest(t, path)
			db, err := Open(path, Options{})
			if err == nil {
				_ = db.Close()
				t.Fatal("a damaged database was opened")
			}
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("err = %v, want ErrDamaged", err)
			}
			if after := storetest.Digest(t, path); after != before {
				t.Error("opening changed the damaged file")
			}
		})
	}
}

func TestWholeDatabaseChecksAndCopies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	makeDatabase(t, path)
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatalf("a whole database fails its check: %v", err)
	}
	var buf bytes.Buffer
	if _, err := db.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(copyPath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := Open(copyPath, Options{})
	if err != nil {
		t.Fatalf("the copy does not open: %v", err)
	}
	defer cp.Close()
	n := 0
	_ = cp.View(func(tx *bolt.Tx) error { n = tx.Bucket([]byte("records")).Stats().KeyN; return nil })
	if n != 2000 {
		t.Errorf("copy holds %d records, want 2000", n)
	}
}
