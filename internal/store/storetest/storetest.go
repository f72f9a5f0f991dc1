// Package storetest breaks database files in the ways a daemon must
// refuse (truncated, emptied, pages or metas overwritten, junk), for the
// store's own tests and the end-to-end ones. Only tests import it.
package storetest

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"testing"
)

// Damage is a way a database file gets broken.
type Damage struct {
	Name  string
	Apply func(tb testing.TB, path string)
}

// Damages are the seven kinds of damage a daemon must refuse, each
// applied to a whole file.
var Damages = []Damage{
	{"truncated to half", func(tb testing.TB, path string) { truncate(tb, path, size(tb, path)/2) }},
	{"truncated to zero", func(tb testing.TB, path string) { truncate(tb, path, 0) }},
	{"random pages overwritten", func(tb testing.TB, path string) { overwritePages(tb, path, int(size(tb, path)/4096)/2, 3) }},
	{"first meta page broken", func(tb testing.TB, path string) { overwrite(tb, path, 16, 32) }},
	{"both meta pages broken", func(tb testing.TB, path string) {
		overwrite(tb, path, 16, 32)
		overwrite(tb, path, 4096+16, 32)
	}},
	{"replaced by junk", func(tb testing.TB, path string) {
		r := rand.New(rand.NewPCG(3, 4))
		junk := make([]byte, size(tb, path))
		for i := range junk {
			junk[i] = byte(r.IntN(256))
		}
		writeFile(tb, path, junk)
	}},
	{"truncated to 100 bytes", func(tb testing.TB, path string) { truncate(tb, path, 100) }},
}

func size(tb testing.TB, path string) int64 {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

func truncate(tb testing.TB, path string, n int64) {
	tb.Helper()
	if err := os.Truncate(path, n); err != nil {
		tb.Fatal(err)
	}
}

func overwrite(tb testing.TB, path string, off int64, n int) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	junk := bytes.Repeat([]byte{0xA5}, n)
	if _, err := f.WriteAt(junk, off); err != nil {
		tb.Fatal(err)
	}
}

// overwritePages fills count pages from page first on with junk.
func overwritePages(tb testing.TB, path string, first, count int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for p := first; p < first+count; p++ {
		off := int64(p) * 4096
		junk := make([]byte, 4096)
		for i := range junk {
			junk[i] = byte(r.IntN(256))
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			tb.Fatal(err)
		}
		_, err = f.WriteAt(junk, off)
		_ = f.Close()
		if err != nil {
			tb.Fatal(err)
		}
	}
}

func writeFile(tb testing.TB, path string, b []byte) {
	tb.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// Digest is the SHA-256 of the file at path.
func Digest(tb testing.TB, path string) [32]byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return sha256.Sum256(b)
}
