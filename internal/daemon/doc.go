// Package daemon is beamclaw's one composition root: it turns the config
// into each package's own Options, opens the store and the listeners,
// builds the suture tree (obs, store, sessions, MCP, gateway and channels),
// serves it until a signal or a fatal failure, and closes everything in
// reverse order, the store last. It also implements the operations the CLI
// runs without a daemon (config check/show, doctor, agents, skills).
//
// Only cmd/beamclaw imports it.
package daemon
