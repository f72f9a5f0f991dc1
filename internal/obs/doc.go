// Package obs carries beamclaw's observability: a Bus whose Emit never
// blocks the caller (a bounded queue, a count of what was dropped), fanned
// out to backends that can be added without touching callers — the slog
// backend and the Prometheus backend here. Event names and attributes are
// the spec's table (spec/beamclaw-guide.md, "Observability Events").
//
// It imports only internal/beamclaw; any package may import it.
package obs
