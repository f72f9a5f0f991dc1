//go:build linux

package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// warm asks the kernel to read the whole file into the page cache, in
// large sequential reads, before bbolt maps it. bbolt maps the file with
// MADV_RANDOM (no readahead), so on a cold cache (after a reboot, or once
// other work evicted the file) every page the start touches — the session
// count, the check of every page — is a random 4 KiB read: seconds for a
// file of 100,000 sessions (docs/performance.md, "Restarts on a grown
// database"). The hint returns once the reads are queued; the pages the
// start touches then arrive at the disk's sequential speed (112 MiB in
// 0.3 s on the machine of docs/performance.md, against 1.9 s page by
// page). It changes nothing in the file, and costs next to nothing when
// the file is already cached.
func warm(path string) {
	f, err := os.Open(path)
	if err != nil {
		return // preflight reported what matters
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	// One hint for the whole file reads only the first few MiB (the
	// device's readahead bound); a hint per chunk queues all of it.
	for off := int64(0); off < fi.Size(); off += warmChunk {
		if unix.Fadvise(int(f.Fd()), off, warmChunk, unix.FADV_WILLNEED) != nil {
			return // a hint: without it the start is only slower
		}
	}
}

// warmChunk is the span of one read-ahead hint.
const warmChunk = 4 << 20
