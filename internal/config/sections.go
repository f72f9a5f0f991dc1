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

// MCP configures MCP client connections.
type MCP struct {
	ProtocolVersion string `yaml:"protocol_version"`
	MaxInlineTools  int    `yaml:"max_inline_tools"`
	// MaxRestarts within RestartWindowSeconds before a server is marked failed.
	MaxRestarts          int         `yaml:"max_restarts"`
	RestartWindowSeconds int         `yaml:"restart_window_seconds"`
	Servers              []MCPServer `yaml:"servers"`
}

// MCPServer is one MCP server, over stdio (a child process) or streamable
// HTTP.
type MCPServer struct {
	Name           string              `yaml:"name"`
	Transport      string              `yaml:"transport"`
	Command        string              `yaml:"command"`
	Args           []string            `yaml:"args"`
	Env            map[string]EnvValue `yaml:"env"`
	Cwd            string              `yaml:"cwd"`
	URL            string              `yaml:"url"`
	Headers        map[string]EnvValue `yaml:"headers"`
	TimeoutSeconds int                 `yaml:"timeout_seconds"`
	Enabled        bool                `yaml:"enabled"`
	// Trust lifts the approval requirement on the server's tools.
	Trust bool `yaml:"trust"`
	// Agents that may use the server; empty means all.
	Agents []string `yaml:"agents"`
	// OAuth configures authorization for an http server (see docs/mcp.md).
	OAuth MCPOAuth `yaml:"oauth"`
}

// MCPOAuth is an http MCP server's OAuth client. All of it is optional:
// without it `beamclaw mcp login` discovers the authorization server and
// registers beamclaw dynamically.
type MCPOAuth struct {
	// ClientID and ClientSecret are a client registered with the
	// authorization server beforehand.
	ClientID     string `yaml:"client_id"`
	ClientSecret Secret `yaml:"client_secret"`
	// ClientMetadataURL is an https URL where the owner hosts a Client ID
	// Metadata Document, used as client_id where the server supports it.
	ClientMetadataURL string `yaml:"client_metadata_url"`
	// Scopes are requested in addition to those the server names.
	Scopes []string `yaml:"scopes"`
	// Grant is authorization_code (a person logs in) or
	// client_credentials (machine to machine, needs client_id and secret).
	Grant string `yaml:"grant"`
	// RedirectPort fixes the loopback redirect's port (0: any free port),
	// for a pre-registered client whose redirect URI names one.
	RedirectPort int `yaml:"redirect_port"`
}

// MCPOAuthGrants are the grants an MCP server's oauth.grant may name.
var MCPOAuthGrants = []string{"authorization_code", "client_credentials"}

func (s *MCPServer) setDefaults() {
	s.Transport = "stdio"
	s.TimeoutSeconds = 30
	s.Enabled = true
}
