// Package initgc keeps the garbage collector off while most of the
// binary's packages initialise. Their init functions allocate about
// 4 MiB, most of it garbage (santhosh-tekuri/jsonschema/v6, linked in by
// mcp-go's client, compiles its meta-schemas; docker's reference package
// and goldmark build tables): at the default GOGC a collection in the
// middle of every command's start, `beamclaw version` included
// (docs/performance.md). Packages initialise in import-path order among
// those whose imports are done; this one imports only runtime/debug, os
// and strconv, so it runs as soon as those are ready — before jsonschema
// and the other heavy inits that sort after it (test/e2e checks the
// order). main calls Resume first thing.
package initgc

import (
	"os"
	"runtime/debug"
	"strconv"
)

func init() { debug.SetGCPercent(-1) }

// Resume gives the collector back the percentage GOGC asks for.
func Resume() { debug.SetGCPercent(percent(os.Getenv("GOGC"))) }

// percent is the GC percentage a GOGC value means, read as the runtime
// reads it: "off" is off (-1), a 32-bit decimal integer is itself (a
// negative one is off too), and anything else (unset, unreadable, out of
// range) is 100.
func percent(gogc string) int {
	if gogc == "off" {
		return -1
	}
	if n, err := strconv.ParseInt(gogc, 10, 32); err == nil {
		return int(n)
	}
	return 100
}
