package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// ErrDamaged is wrapped by every error of a database file that is not a
// whole bbolt file: truncated, emptied, overwritten, pages broken.
var ErrDamaged = errors.New("database file damaged")

// The meta pages of a bbolt file (go.etcd.io/bbolt internal/common): two
// copies at pages 0 and 1, each a 16-byte page header followed by magic,
// version, page size, flags, root bucket (root pgid, sequence), freelist
// pgid, high-water-mark pgid, txid and an FNV-64a checksum of the fields
// before it.
const (
	pageHeaderSize = 16
	metaSize       = 64
	metaSumOffset  = 56
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	minPageSize    = 512
)

type meta struct {
	pageSize uint32
	pgid     uint64 // high-water mark: the file holds at least pgid pages
	txid     uint64
}

// fixHint tells the owner what to do with a damaged file.
const fixHint = "the file was left untouched; restore a backup (`beamclaw db backup` makes one; see docs/running.md#backups), " +
	"or move it aside to start with an empty database"

func damaged(path, what string) error {
	return fmt.Errorf("%s: %w: %s; %s", path, ErrDamaged, what, fixHint)
}

// preflight checks an existing file before bbolt maps it: mapping a
// truncated file kills the process with SIGBUS, and opening an emptied
// one silently starts a new database. It reads only the two meta pages.
func preflight(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a new database
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	size := fi.Size()
	if size == 0 {
		return damaged(path, "it is empty (0 bytes), so its data is gone")
	}
	head := make([]byte, pageHeaderSize+metaSize)
	if _, err := f.ReadAt(head, 0); err != nil {
		return damaged(path, fmt.Sprintf("it is %d bytes, too short to be a database", size))
	}
	m0, err0 := parseMeta(head)
	if err0 != nil {
		return damaged(path, "its first meta page is "+err0.Error())
	}
	second := make([]byte, pageHeaderSize+metaSize)
	if _, err := f.ReadAt(second, int64(m0.pageSize)); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read store %s: %w", path, err)
	}
	m1, err1 := parseMeta(second)
	if err1 != nil {
		return damaged(path, "its second meta page is "+err1.Error())
	}
	if m1.pageSize != m0.pageSize {
		return damaged(path, "its meta pages disagree on the page size")
	}
	hwm := max(m0.pgid, m1.pgid)
	if want := int64(hwm) * int64(m0.pageSize); size < want {
		return damaged(path, fmt.Sprintf("it is %d bytes but its pages reach byte %d: it was truncated", size, want))
	}
	return nil
}

// parseMeta decodes and validates one meta page.
func parseMeta(page []byte) (meta, error) {
	if len(page) < pageHeaderSize+metaSize {
		return meta{}, errors.New("missing")
	}
	b := page[pageHeaderSize : pageHeaderSize+metaSize]
	le := binary.LittleEndian
	switch {
	case le.Uint32(b[0:]) != boltMagic:
		return meta{}, errors.New("not a bbolt meta page (bad magic)")
	case le.Uint32(b[4:]) != boltVersion:
		return meta{}, fmt.Errorf("of an unknown format version %d", le.Uint32(b[4:]))
	}
	h := fnv.New64a()
	_, _ = h.Write(b[:metaSumOffset])
	if h.Sum64() != le.Uint64(b[metaSumOffset:]) {
		return meta{}, errors.New("damaged (checksum mismatch)")
	}
	m := meta{pageSize: le.Uint32(b[8:]), pgid: le.Uint64(b[40:]), txid: le.Uint64(b[48:])}
	if m.pageSize < minPageSize || m.pageSize&(m.pageSize-1) != 0 {
		return meta{}, fmt.Errorf("damaged (page size %d)", m.pageSize)
	}
	return m, nil
}

// Check walks every page reachable from the root and the freelist and
// reports what does not hold together. A panic inside bbolt (it asserts
// on pages it cannot read) is a finding, not a crash.
func (db *DB) Check() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = damaged(db.path, fmt.Sprintf("a page cannot be read (%v)", v))
		}
	}()
	var problems []string
	verr := db.bolt.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			problems = append(problems, e.Error())
		}
		return nil
	})
	if verr != nil {
		return fmt.Errorf("check %s: %w", db.path, verr)
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		return damaged(db.path, "its pages do not hold together: "+strings.Join(problems, "; "))
	}
	return nil
}

// quickCheckBytes bounds the file size up to which Open checks every page
// (a few milliseconds); a larger file gets checkRoots at Open and the full
// check in the background (Options.QuickCheckBytes).
const quickCheckBytes = 64 << 20

// checkRoots reads the root, first and last pages of every top-level
// bucket (and the freelist, which bbolt loaded at open): what the daemon
// reads while it starts, checked before it trusts the file.
func (db *DB) checkRoots() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = damaged(db.path, fmt.Sprintf("a bucket's pages cannot be read (%v)", v))
		}
	}()
	return db.bolt.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			c := b.Cursor()
			c.First()
			c.Last()
			return nil
		})
	})
}

// WriteTo writes a consistent copy of the whole database to w, while
// other transactions go on (an online backup).
func (db *DB) WriteTo(w io.Writer) (int64, error) {
	var n int64
	err := db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}
