package builtin

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// Defaults of the tools the config sets, shared by the config's defaults
// (DefaultConfig) and the tools' own (zero options).
const (
	DefaultCurlTimeout          = 30 * time.Second
	DefaultCurlMaxResponseBytes = 1 << 20
	DefaultWebSearchMaxResults  = 10
	// MinPageBytes is the least tools.page_bytes (and a tool's own) may
	// be: a page must hold its header and some of the output.
	MinPageBytes = 1 << 10
)

// Config is the tools section of config.yaml: the registry's bounds, the
// remote policy and the built-in tools' settings. The package owns it.
type Config struct {
	TimeoutSeconds int `yaml:"timeout_seconds"`
	// MaxOutputBytes is the most of a result kept whole (and captured of
	// a bash or terminal process); longer ones end with a marker.
	MaxOutputBytes int `yaml:"max_output_bytes"`
	// PageBytes is the page size of results (0: from the model's context
	// window): a longer one reaches the model as its head and tail, and
	// tool_output reads the rest. PageBytesPerTool sets it by tool name.
	PageBytes        int            `yaml:"page_bytes"`
	PageBytesPerTool map[string]int `yaml:"page_bytes_per_tool"`
	// FileRoots confine the file tools; empty means the agent's workspace.
	FileRoots []string `yaml:"file_roots"`
	// RemoteHighRisk is what high-risk tools do on remote channels
	// (Telegram, HTTP, A2A, TCP /ws): "approve" asks, "deny" refuses.
	RemoteHighRisk string          `yaml:"remote_high_risk"`
	Curl           CurlConfig      `yaml:"curl"`
	WebSearch      WebSearchConfig `yaml:"web_search"`
	Bash           BashConfig      `yaml:"bash"`
}

// CurlConfig is tools.curl.
type CurlConfig struct {
	AllowPrivate     bool  `yaml:"allow_private"`
	TimeoutSeconds   int   `yaml:"timeout_seconds"`
	MaxResponseBytes int64 `yaml:"max_response_bytes"`
}

// WebSearchConfig is tools.web_search (Brave Search).
type WebSearchConfig struct {
	APIKey     setting.Secret `yaml:"api_key"`
	BaseURL    string         `yaml:"base_url"`
	MaxResults int            `yaml:"max_results"`
}

// BashConfig is tools.bash: the bash and terminal tools.
type BashConfig struct {
	Enabled bool `yaml:"enabled"`
}

// RemoteHighRisks are the values tools.remote_high_risk takes.
var RemoteHighRisks = []string{tool.RemoteHighRiskApprove, tool.RemoteHighRiskDeny}

// DefaultConfig is the section when the file says nothing.
func DefaultConfig() Config {
	return Config{
		TimeoutSeconds:   int(tool.DefaultTimeout / time.Second),
		MaxOutputBytes:   tool.DefaultMaxOutputBytes,
		PageBytesPerTool: map[string]int{},
		FileRoots:        []string{},
		RemoteHighRisk:   tool.RemoteHighRiskApprove,
		Curl:             CurlConfig{TimeoutSeconds: int(DefaultCurlTimeout / time.Second), MaxResponseBytes: DefaultCurlMaxResponseBytes},
		WebSearch: WebSearchConfig{APIKey: setting.Env("BRAVE_API_KEY"), BaseURL: DefaultBraveBaseURL,
			MaxResults: DefaultWebSearchMaxResults},
		Bash: BashConfig{Enabled: true},
	}
}

// Validate records every problem of the section under p.
func (c Config) Validate(p *setting.Problems) {
	p.Min("timeout_seconds", c.TimeoutSeconds, 1)
	p.Min("max_output_bytes", c.MaxOutputBytes, 1)
	if c.PageBytes != 0 {
		p.Between("page_bytes", c.PageBytes, MinPageBytes, max(c.MaxOutputBytes, MinPageBytes))
	}
	for _, name := range slices.Sorted(maps.Keys(c.PageBytesPerTool)) {
		p.Between("page_bytes_per_tool."+name, c.PageBytesPerTool[name], MinPageBytes, max(c.MaxOutputBytes, MinPageBytes))
	}
	for i, r := range c.FileRoots {
		if !filepath.IsAbs(r) {
			p.Add(fmt.Sprintf("file_roots[%d]", i), "%q must be an absolute path", r)
		}
	}
	p.Enum("remote_high_risk", c.RemoteHighRisk, RemoteHighRisks)
	p.Min("curl.timeout_seconds", c.Curl.TimeoutSeconds, 1)
	p.Min64("curl.max_response_bytes", c.Curl.MaxResponseBytes, 1)
	p.HTTPURL("web_search.base_url", c.WebSearch.BaseURL, true)
	p.Between("web_search.max_results", c.WebSearch.MaxResults, 1, 20)
}

// Settings is the section as the tools' options: the registry's, the
// built-in tools', whether the shells are on, and the remote policy.
type Settings struct {
	Registry       tool.Options
	Tools          Options
	Bash           bool        // tools.bash.enabled: bash and terminal
	RemoteHighRisk string      // tools.remote_high_risk, applied by the loop's policy
	Paging         tool.Paging // tools.page_bytes and page_bytes_per_tool, applied by the loop
}

// Settings resolves the section (the search key through getenv).
func (c Config) Settings(getenv func(string) string) Settings {
	key, _ := c.WebSearch.APIKey.Resolve(getenv)
	return Settings{
		Registry: tool.Options{Timeout: time.Duration(c.TimeoutSeconds) * time.Second, MaxOutputBytes: c.MaxOutputBytes},
		Tools: Options{
			Process: ProcessOptions{MaxOutputBytes: c.MaxOutputBytes}, // a print the registry keeps whole is captured whole
			Files:   FileOptions{Roots: c.FileRoots},
			Curl: CurlOptions{AllowPrivate: c.Curl.AllowPrivate, MaxResponseBytes: c.Curl.MaxResponseBytes,
				Timeout: time.Duration(c.Curl.TimeoutSeconds) * time.Second},
			WebSearch: WebSearchOptions{APIKey: key, BaseURL: c.WebSearch.BaseURL, MaxResults: c.WebSearch.MaxResults},
		},
		Bash:           c.Bash.Enabled,
		RemoteHighRisk: c.RemoteHighRisk,
		Paging:         tool.Paging{Bytes: c.PageBytes, PerTool: maps.Clone(c.PageBytesPerTool)},
	}
}
