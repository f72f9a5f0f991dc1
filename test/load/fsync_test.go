//go:build linux

package load

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkFdatasync is the scale for a persisted turn: what one 4 KiB
// page write plus fdatasync costs on this disk (a bbolt commit does two,
// pages then meta). Run it where BEAMCLAW_HOME lives: TMPDIR=DIR go test
// -run '^$' -bench Fdatasync ./test/load/.
func BenchmarkFdatasync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := f.WriteAt(page, int64(i%256)*4096); err != nil {
			b.Fatal(err)
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			b.Fatal(err)
		}
	}
}
