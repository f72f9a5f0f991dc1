package storetest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// BreakLeaf overwrites the first leaf page whose first key satisfies
// first (bbolt's leaf layout: a 16-byte page header, then 16-byte
// elements whose pos counts from the element to its key), so that bbolt
// asserts when it reads there. It returns the page's number.
func BreakLeaf(tb testing.TB, path string, first func(key []byte) bool) int64 {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
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
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			tb.Fatal(err)
		}
		_, err = f.WriteAt(bytes.Repeat([]byte{0xA5}, pageSize), int64(off))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			tb.Fatal(err)
		}
		return int64(off / pageSize)
	}
	tb.Fatalf("no leaf page of %s starts with the key wanted", path)
	return 0
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
