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
	"errors"
	"fmt"
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

// Validate reports every problem of o at once.
func (o Options) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.Backend != BackendMemory && o.Backend != BackendBolt {
		bad("memory.backend: %q is not %q or %q", o.Backend, BackendMemory, BackendBolt)
	}
	s := o.Search
	if s.VectorWeight < 0 || s.BM25Weight < 0 || s.VectorWeight+s.BM25Weight == 0 {
		bad("memory.search: vector_weight and bm25_weight must be >= 0 and not both 0")
	}
	if s.MinScore < 0 || s.MinScore > 1 {
		bad("memory.search.min_score: %v is outside [0, 1]", s.MinScore)
	}
	if s.DefaultLimit < 1 {
		bad("memory.search.default_limit: %d must be >= 1", s.DefaultLimit)
	}
	if s.ChunkSize < 1 {
		bad("memory.search.chunk_size: %d must be >= 1", s.ChunkSize)
	}
	if s.ChunkOverlap < 0 || s.ChunkOverlap >= s.ChunkSize {
		bad("memory.search.chunk_overlap: %d must be in [0, chunk_size)", s.ChunkOverlap)
	}
	if s.DailyLogLookback < 0 {
		bad("memory.search.daily_log_lookback: %d must be >= 0", s.DailyLogLookback)
	}
	if o.CacheTTL <= 0 {
		bad("memory.embedding.cache_ttl_seconds: must be > 0")
	}
	if o.RefreshInterval <= 0 {
		bad("memory refresh interval: must be > 0")
	}
	return errors.Join(errs...)
}

func (o Options) now() time.Time { return clock.Or(o.Clock).Now() }
