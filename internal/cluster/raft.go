package cluster

import (
	"sync"
	"time"
	_ "unsafe" // go:linkname: nats-server's RAFT timers (ADR-051)

	_ "github.com/nats-io/nats-server/v2/server"
)

// JetStream elects a new leader for each stream and bucket a dead node
// led only after its RAFT election timeout, 4–9 s in nats-server, with
// no option to change it: a session whose streams a killed node led
// answered again 12 s later. beamclaw runs nats-server's RAFT with the
// timers nats-server's own cluster tests run with (elections after
// 1.5–3.5 s of silence) and a heartbeat four times as often as its
// default (ADR-051). They are process-wide, set once before the first
// server starts; a nats-server without these variables fails the build.
const (
	raftHeartbeat   = 250 * time.Millisecond
	raftMinElection = 1500 * time.Millisecond
	raftMaxElection = 3500 * time.Millisecond
)

//go:linkname natsHeartbeat github.com/nats-io/nats-server/v2/server.hbInterval
var natsHeartbeat time.Duration

//go:linkname natsMinElection github.com/nats-io/nats-server/v2/server.minElectionTimeout
var natsMinElection time.Duration

//go:linkname natsMaxElection github.com/nats-io/nats-server/v2/server.maxElectionTimeout
var natsMaxElection time.Duration

var tuneRaft sync.Once

// tuneRAFT sets the timers before any server of this process starts.
func tuneRAFT() {
	tuneRaft.Do(func() {
		natsHeartbeat, natsMinElection, natsMaxElection = raftHeartbeat, raftMinElection, raftMaxElection
	})
}
