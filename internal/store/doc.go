// Package store owns beamclaw's one bbolt file: opening it with a lock
// timeout (a second process gets a clear error, never a hang), a versioned
// value codec, a small KV, and write transactions whose return means the
// data is on disk, group-committed so that concurrent writers from every
// package share one fsync. Open refuses a damaged file before bbolt maps
// it and checks its pages (warming the page cache in order first, so a
// cold start reads the file sequentially). NoSync is never used: a write
// is acknowledged only after its transaction commits. Each package that
// keeps state owns its bucket names and creates them with DB.Buckets.
//
// Adapters and core packages may import it; it imports nothing internal.
package store
