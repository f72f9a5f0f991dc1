// Package memory is an agent's searchable memory: the spec's Backend
// (store, recall, get, forget, search) with an in-memory and a bbolt
// implementation, an Index of chunked sources searched by keyword (BM25),
// meaning (embeddings) or both, and a Workspace indexer that keeps an
// agent's MEMORY.md and recent daily logs indexed as they change. Pure
// search pieces live in memory/search, the embedding cache in
// memory/embedcache. The daemon, the loop (auto_context) and the
// workspace_memory tool import it.
package memory

import (
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/memory/search"
)

// Backend names (memory.backend).
const (
	BackendMemory = "memory"
	BackendBolt   = "bbolt"
)

// Defaults of the keys that are not search.Default* constants.
const (
	DefaultDailyLogLookback = 7
	DefaultCacheTTL         = 24 * time.Hour
	DefaultRefreshInterval  = 30 * time.Second
)

// SearchOptions mirrors memory.search.
type SearchOptions struct {
	VectorWeight     float64  // vector_weight, 0.7
	BM25Weight       float64  // bm25_weight, 0.3
	MinScore         float64  // min_score, 0.35: merged scores below are dropped
	DefaultLimit     int      // default_limit, 6
	ChunkSize        int      // chunk_size, 400 words per chunk
	ChunkOverlap     int      // chunk_overlap, 80 words shared by neighbours
	WorkspaceFiles   []string // workspace_files, [MEMORY.md], relative to the agent workspace
	DailyLogLookback int      // daily_log_lookback, 7 days of memory/YYYY-MM-DD.md (today included)
}

// Options mirrors the memory config section. The daemon fills it from
// config; Clock defaults to clock.System.
type Options struct {
	Backend         string        // memory.backend: "memory" or "bbolt"
	Search          SearchOptions // memory.search
	CacheTTL        time.Duration // memory.embedding.cache_ttl_seconds, 86400
	RefreshInterval time.Duration // how often Workspace.Serve re-checks files, 30 s
	Clock           clock.Clock   // defaults to clock.System
}

// DefaultOptions returns the spec's defaults.
func DefaultOptions() Options {
	return Options{
		Backend: BackendMemory,
		Search: SearchOptions{
			VectorWeight:     search.DefaultVectorWeight,
			BM25Weight:       search.DefaultBM25Weight,
			MinScore:         search.DefaultMinScore,
			DefaultLimit:     search.DefaultLimit,
			ChunkSize:        search.DefaultChunkSize,
			ChunkOverlap:     search.DefaultChunkOverlap,
			WorkspaceFiles:   []string{"MEMORY.md"},
			DailyLogLookback: DefaultDailyLogLookback,
		},
		CacheTTL:        DefaultCacheTTL,
		RefreshInterval: DefaultRefreshInterval,
	}
}

func (o Options) now() time.Time { return clock.Or(o.Clock).Now() }
