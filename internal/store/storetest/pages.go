package storetest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BreakLeaf overwrites the first live leaf page whose first key
// satisfies first (LeafPage), so that bbolt asserts when it reads there.
// It returns the page's number. The file must not be open elsewhere.
func BreakLeaf(tb testing.TB, path string, first func(key []byte) bool) int64 {
	tb.Helper()
	id := LeafPage(tb, path, first)
	BreakPage(tb, path, id)
	return id
}

// LeafPage finds the first leaf page of the (closed) database at path
// whose first key satisfies first (bbolt's leaf layout: a 16-byte page
// header, then 16-byte elements whose pos counts from the element to its
// key). Only pages the tree uses count: bbolt copies a page on write, so
// the file also holds stale copies in its freelist and past its last
// page, and breaking one of those damages nothing.
func LeafPage(tb testing.TB, path string, first func(key []byte) bool) int64 {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := bolt.Open(path, 0o400, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	if err != nil {
		tb.Fatalf("open %s to find a live page: %v", path, err)
	}
	defer func() { _ = db.Close() }()
	tx, err := db.Begin(false)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	le := binary.LittleEndian
	pageSize := int(le.Uint32(b[16+8:]))
	for off := 2 * pageSize; off+pageSize <= len(b); off += pageSize {
		p := b[off:]
		if le.Uint16(p[8:]) != 0x02 || le.Uint16(p[10:]) == 0 { // a leaf with elements
			continue
		}
		elem := p[16:]
		pos, ksize := le.Uint32(elem[4:]), le.Uint32(elem[8:])
		if int(16+pos+ksize) > pageSize || !first(elem[pos:pos+ksize]) {
			continue
		}
		info, err := tx.Page(off / pageSize)
		if err != nil {
			tb.Fatal(err)
		}
		if info == nil || info.Type != "leaf" { // past the last page, or free
			continue
		}
		return int64(off / pageSize)
	}
	tb.Fatalf("no live leaf page of %s starts with the key wanted", path)
	return 0
}

// BreakPage overwrites page id of the database at path with a pattern
// bbolt cannot read (an open daemon's map sees it at once).
func BreakPage(tb testing.TB, path string, id int64) {
	tb.Helper()
	b := make([]byte, 8)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.ReadAt(b[:4], 16+8); err != nil { // the page size, from meta 0
		tb.Fatal(err)
	}
	pageSize := int64(binary.LittleEndian.Uint32(b))
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, int(pageSize)), id*pageSize); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// Grow adds a bucket of ballast to the (closed) database at path until
// the file holds at least size bytes: a large database in seconds.
func Grow(tb testing.TB, path string, size int64) {
	tb.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	value := bytes.Repeat([]byte{'b'}, 1<<20)
	for i := 0; ; i++ {
		if fi, err := os.Stat(path); err == nil && fi.Size() >= size {
			break
		}
		if err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("ballast"))
			if err != nil {
				return err
			}
			return b.Put(fmt.Appendf(nil, "%08d", i), value)
		}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.Sync(); err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
}
