// Package initgc keeps the garbage collector off while the binary's
// packages initialise. Their init functions allocate about 8 MiB (most of
// it garbage: JSON meta-schemas compiled and dropped, tables built once),
// which at the default GOGC costs two or three collections and about
// 4 ms of every command's start, `beamclaw version` included
// (docs/performance.md). Package initialisation runs in import-path
// order among the packages whose imports are done, so this one, which
// imports only the standard library, runs before the heavy third-party
// ones; main calls Resume first thing.
package initgc

import (
	"os"
	"runtime/debug"
	"strconv"
)

func init() { debug.SetGCPercent(-1) }

// Resume gives the collector back the percentage GOGC asks for (100 when
// unset or unreadable, off for "off"), as the runtime itself reads it.
func Resume() { debug.SetGCPercent(Percent(os.Getenv("GOGC"))) }

// Percent is the GC percentage a GOGC value means.
func Percent(gogc string) int {
	if gogc == "off" {
		return -1
	}
	if n, err := strconv.Atoi(gogc); err == nil {
		return n
	}
	return 100
}
