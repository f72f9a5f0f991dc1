// Package daemon is beamclaw's composition root, and wiring only: it turns
// the config into a plan (each package's own Options, as data: plan.go, a
// pure function a test proves every config key reaches), opens the store
// and the listeners, builds the suture tree (obs, memory, MCP, sessions,
// gateway and channels) from the plan, serves it until a signal or a fatal
// failure, and closes everything in reverse order, the store last. Domain
// work lives in the packages it wires (the agent runtime in internal/agent,
// the CLI's operations in internal/admin).
//
// Only cmd/beamclaw imports it.
package daemon
