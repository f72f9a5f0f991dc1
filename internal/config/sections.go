package config

// Memory configures the memory backend and search.
type Memory struct {
	Backend   string       `yaml:"backend"`
	Embedding Embedding    `yaml:"embedding"`
	Search    MemorySearch `yaml:"search"`
}

// Embedding is the OpenAI-compatible /v1/embeddings client.
type Embedding struct {
	Enabled         bool   `yaml:"enabled"`
	Model           string `yaml:"model"`
	BaseURL         string `yaml:"base_url"`
	APIKey          Secret `yaml:"api_key"`
	Dimensions      int    `yaml:"dimensions"`
	CacheTTLSeconds int    `yaml:"cache_ttl_seconds"`
}

// MemorySearch tunes hybrid (BM25 + vector) search and indexing.
type MemorySearch struct {
	VectorWeight     float64  `yaml:"vector_weight"`
	BM25Weight       float64  `yaml:"bm25_weight"`
	MinScore         float64  `yaml:"min_score"`
	DefaultLimit     int      `yaml:"default_limit"`
	ChunkSize        int      `yaml:"chunk_size"`
	ChunkOverlap     int      `yaml:"chunk_overlap"`
	WorkspaceFiles   []string `yaml:"workspace_files"`
	DailyLogLookback int      `yaml:"daily_log_lookback"`
}
