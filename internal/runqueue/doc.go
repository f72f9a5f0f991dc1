// Package runqueue holds a run's events between a beamclaw.Route's
// Deliver, which must never block the session, and the one goroutine that
// relays them at its own pace (an HTTP handler of the OpenAI-compatible
// API, an A2A task's execution). It imports only the vocabulary; the
// edges (gateway, a2a) import it.
package runqueue
