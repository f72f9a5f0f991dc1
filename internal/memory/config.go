package memory

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the memory section of config.yaml: the backend, the
// embeddings client and search. The package owns it.
type Config struct {
	Backend   string          `yaml:"backend"`
	Embedding EmbeddingConfig `yaml:"embedding"`
	Search    SearchConfig    `yaml:"search"`
}

// EmbeddingConfig is memory.embedding: the OpenAI-compatible /embeddings
// client and its cache.
type EmbeddingConfig struct {
	Enabled         bool           `yaml:"enabled"`
	Model           string         `yaml:"model"`
	BaseURL         string         `yaml:"base_url"`
	APIKey          setting.Secret `yaml:"api_key"`
	Dimensions      int            `yaml:"dimensions"`
	CacheTTLSeconds int            `yaml:"cache_ttl_seconds"`
}

// SearchConfig is memory.search: hybrid (BM25 + vector) search and
// indexing.
type SearchConfig struct {
	VectorWeight     float64  `yaml:"vector_weight"`
	BM25Weight       float64  `yaml:"bm25_weight"`
	MinScore         float64  `yaml:"min_score"`
	DefaultLimit     int      `yaml:"default_limit"`
	ChunkSize        int      `yaml:"chunk_size"`
	ChunkOverlap     int      `yaml:"chunk_overlap"`
	WorkspaceFiles   []string `yaml:"workspace_files"`
	DailyLogLookback int      `yaml:"daily_log_lookback"`
}

// Backends are the values memory.backend takes.
var Backends = []string{BackendMemory, BackendBolt}

// Defaults of the embeddings client.
const (
	DefaultEmbeddingModel      = "text-embedding-3-small"
	DefaultEmbeddingBaseURL    = "https://api.openai.com/v1"
	DefaultEmbeddingDimensions = 1536
)

// DefaultConfig is the section when the file says nothing: memory kept in
// bbolt, embeddings on (keyword search alone while no key is set).
func DefaultConfig() Config {
	s := DefaultOptions().Search
	return Config{
		Backend: BackendBolt,
		Embedding: EmbeddingConfig{Enabled: true, Model: DefaultEmbeddingModel, BaseURL: DefaultEmbeddingBaseURL,
			APIKey: setting.Env("BEAMCLAW_EMBEDDING_API_KEY"), Dimensions: DefaultEmbeddingDimensions,
			CacheTTLSeconds: int(DefaultCacheTTL / time.Second)},
		Search: SearchConfig(s),
	}
}

// Validate records every problem of the section under p.
func (c Config) Validate(p *setting.Problems) {
	p.Enum("backend", c.Backend, Backends)
	e := c.Embedding
	p.HTTPURL("embedding.base_url", e.BaseURL, e.Enabled)
	if e.Enabled && e.Model == "" {
		p.Add("embedding.model", "must not be empty when embeddings are enabled")
	}
	p.Min("embedding.dimensions", e.Dimensions, 1)
	p.Min("embedding.cache_ttl_seconds", e.CacheTTLSeconds, 0)
	s := c.Search
	unit(p, "search.vector_weight", s.VectorWeight)
	unit(p, "search.bm25_weight", s.BM25Weight)
	if s.VectorWeight+s.BM25Weight <= 0 {
		p.Add("search.bm25_weight", "vector_weight + bm25_weight must be above 0")
	}
	unit(p, "search.min_score", s.MinScore)
	p.Min("search.default_limit", s.DefaultLimit, 1)
	p.Min("search.chunk_size", s.ChunkSize, 1)
	if s.ChunkOverlap < 0 || s.ChunkOverlap >= s.ChunkSize {
		p.Add("search.chunk_overlap", "must be 0 or more and below chunk_size (%d), got %d", s.ChunkSize, s.ChunkOverlap)
	}
	for i, f := range s.WorkspaceFiles {
		if f == "" || filepath.IsAbs(f) || strings.Contains(f, "..") {
			p.Add(fmt.Sprintf("search.workspace_files[%d]", i), "%q must be a path inside the agent workspace", f)
		}
	}
	p.Min("search.daily_log_lookback", s.DailyLogLookback, 0)
}

func unit(p *setting.Problems, key string, v float64) {
	if v < 0 || v > 1 || v != v {
		p.Add(key, "must be between 0 and 1, got %g", v)
	}
}

// Options is the section as the memory's Options (the embeddings client
// is the daemon's to build from c.Embedding).
func (c Config) Options() Options {
	o := DefaultOptions()
	o.Backend = c.Backend
	o.Search = SearchOptions(c.Search)
	o.CacheTTL = time.Duration(c.Embedding.CacheTTLSeconds) * time.Second
	return o
}
