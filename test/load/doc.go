// Package load measures a running beamclaw daemon from the outside: a
// bounded load generator for the OpenAI-compatible route (plain, streamed
// and ephemeral turns, with the same requests sent straight to the fake
// provider as a baseline), latency summaries (p50/p90/p99/max), a cold-start
// timer for the real binary, sandboxed exec calls over the control socket
// (first of a scope, warm), readers for a process's resident memory
// and the daemon's Prometheus gauges, a kill -9 soak of the real binary
// (Soak: exec to ready after kill -9 on a grown database, and every
// acknowledged turn in its history exactly once), and Main, the main of its
// commands.
//
// Every run is bounded by a request count and a deadline and talks only to
// loopback addresses it is given. The commands cmd/bcload and cmd/bcsoak
// and the scripts scripts/measure.sh and scripts/soak.sh use it;
// docs/performance.md records the numbers.
// Only test tooling imports this package; the daemon never does.
package load
