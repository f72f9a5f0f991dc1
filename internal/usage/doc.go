// Package usage is the usage ledger: one entry per model call (tokens
// in, out and cached, model, provider, cost from the rate sheet),
// attributed to its session, user, agent, channel and origin, written in
// the turn's own group commit (store.DB.Update), so it costs no fsync of
// its own; and the reports over it (beamclaw usage).
package usage
