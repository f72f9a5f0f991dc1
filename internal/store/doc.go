// Package store owns beamclaw's one bbolt file: opening it with a lock
// timeout (a second process gets a clear error, never a hang), the bucket
// names of every domain, a versioned value codec, and transactions whose
// return means the data is on disk. NoSync is never used: a write is
// acknowledged only after its transaction commits.
//
// Adapters and core packages may import it; it imports nothing internal.
package store
