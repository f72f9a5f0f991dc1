// Package leak is the goroutine-leak check of the test binaries that start
// embedded NATS nodes: goleak, less the two goroutines nats-server leaves
// when a stream reset races its own shutdown.
//
// nats-server (v2.15.2, jetstream_cluster.go, resetClusteredState) resets
// a stream whose catch-up failed in a goroutine of its own: it checks
// js.shuttingDown, then creates the stream again. A node's shutdown that
// lands between the two (a test stopping its nodes one by one, the others
// catching up from it) leaves the new stream's file store running, with
// its flush loop and the access-time ticker it registered. Nothing outside
// the server can reach that store to stop it; the daemon exits after its
// node's Close, so only test binaries see it.
package leak

import (
	"testing"

	"go.uber.org/goleak"
)

// natsShutdownRace are the goroutines of a file store created after its
// server shut down.
var natsShutdownRace = []goleak.Option{
	goleak.IgnoreTopFunction("github.com/nats-io/nats-server/v2/server.(*fileStore).flushStreamStateLoop"),
	goleak.IgnoreTopFunction("github.com/nats-io/nats-server/v2/server/ats.Register.func1"),
}

// VerifyTestMain runs m's tests and fails the binary when goroutines
// other than natsShutdownRace's outlive them.
func VerifyTestMain(m *testing.M) {
	goleak.VerifyTestMain(m, natsShutdownRace...)
}
