//go:build linux

package load

import (
	"os"

	"golang.org/x/sys/unix"
)

// evict drops the file at path from the page cache (its clean pages: the
// daemon syncs every commit), as memory pressure or other work on the
// machine would: the next start reads it from the disk.
func evict(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
