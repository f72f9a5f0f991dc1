package memory

// Mode selects how Search ranks: by keyword (BM25), by meaning (embedding
// cosine) or by both merged.
type Mode string

// Search modes.
const (
	ModeKeyword  Mode = "keyword"
	ModeSemantic Mode = "semantic"
	ModeHybrid   Mode = "hybrid"
)

// Valid reports whether m is one of the three modes.
func (m Mode) Valid() bool {
	return m == ModeKeyword || m == ModeSemantic || m == ModeHybrid
}

// Query is one search. An empty Mode means hybrid; a Limit below 1 means
// memory.search.default_limit.
type Query struct {
	Text  string
	Mode  Mode
	Limit int
}

// Hit is one search result: a chunk of a source (a workspace file such as
// "MEMORY.md" or "memory/2026-01-02.md", or a Backend entry key).
type Hit struct {
	Source    string  `json:"source"`
	Text      string  `json:"text"`
	StartLine int     `json:"start_line,omitempty"` // 1-based; 0 when not from a file
	EndLine   int     `json:"end_line,omitempty"`
	Score     float64 `json:"score"` // merged score in [0, 1]
	Mode      Mode    `json:"mode"`  // the mode that produced it
}

// Results is the answer to a Query. When semantic or hybrid search was
// asked for but could not run (no embedder configured, or the embedding
// provider failed), Degraded is true, Mode is keyword, Reason says why in
// words fit for the model, and Cause holds the underlying error for logs.
type Results struct {
	Hits     []Hit  `json:"hits"`
	Mode     Mode   `json:"mode"`
	Degraded bool   `json:"degraded,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Cause    error  `json:"-"`
}
