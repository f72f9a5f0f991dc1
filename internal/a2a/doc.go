// Package a2a is beamclaw's A2A edge (Agent2Agent protocol v1.0), built on
// github.com/a2aproject/a2a-go/v2: the only package that imports it.
//
// As a server it mounts the SDK's JSON-RPC handler on /a2a (v1.0 method
// names, and v0.3 ones through the SDK's a2av0 compatibility layer), the
// HTTP+JSON binding on /a2a/rest, and an agent card per exposed agent at
// /.well-known/agent-card.json (legacy /.well-known/agent.json). An A2A
// message becomes a turn of a beamclaw session through the consumer-declared
// Sessions interface: streamed text becomes artifact updates, an approval
// request becomes input-required (the peer's next message on the task
// answers it), a loop error becomes failed. Tasks live in bbolt (TaskStore)
// and survive restarts; push notifications go through the curl tool's SSRF
// guard, and a push config's credentials are scrubbed from its request's
// log lines and errors (peersecret.go). Every request is authenticated by the gateway token or a peer's
// token, and a caller sees only its own tasks.
//
// As a client it is the a2a_call tool (an agent delegates to a configured
// peer) and the operations behind `beamclaw a2a discover|send`.
//
// It is an edge: it imports core packages and the vocabulary, never the
// gateway or another edge; the daemon mounts its routes and hands it the
// session manager.
package a2a
