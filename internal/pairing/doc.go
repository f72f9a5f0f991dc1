// Package pairing decides who may talk to beamclaw through a remote channel
// (Telegram today): one-time pairing codes a stranger receives and the owner
// approves with `beamclaw pair telegram CODE`, the list of approved peers per
// channel and the agent each is bound to, revocation, and the dm_policy gate
// (pairing, allowlist, open) with its allow_from list.
//
// State lives in bbolt (the bucket "pairing", which this package owns): one sub-bucket per channel
// holding "pending" and "approved" buckets keyed by the channel's user id.
// Codes come from crypto/rand, expire after an hour (the clock is
// injected), and are never logged: Pending's slog form omits them.
//
// Channel adapters, the daemon and the CLI may import it; it imports only
// internal/store.
package pairing
