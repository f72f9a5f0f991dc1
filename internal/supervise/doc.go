// Package supervise holds the helpers every long-running part of beamclaw
// uses to live under a suture/v4 supervision tree: Func turns a function
// into a Service, Guard wraps a Service with panic recovery, a restart
// budget and the context-error rule, NoRestart and Fatal put restart intent
// into the error, and New builds a supervisor whose events go to slog.
//
// It imports nothing internal; any package may import it.
package supervise
