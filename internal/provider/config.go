package provider

import (
	"log/slog"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is one entry of core.providers: an LLM endpoint and the adapter
// (Kind) that speaks its API. The package owns it: defaults, Validate and
// Settings.
type Config struct {
	// Kind names the adapter (the registered Adapters' Kind); default
	// "openai", any OpenAI-compatible chat completions endpoint
	// (OpenRouter, OpenAI, Ollama, vLLM...).
	Kind   string         `yaml:"kind"`
	APIKey setting.Secret `yaml:"api_key"`
	// APIKeys are more keys of the same account or others, tried in turn
	// after api_key when one is refused (401, 402, 403).
	APIKeys                  []setting.Secret `yaml:"api_keys"`
	BaseURL                  string           `yaml:"base_url"`
	Model                    string           `yaml:"model"`
	TimeoutSeconds           int              `yaml:"timeout_seconds"`
	FirstTokenTimeoutSeconds int              `yaml:"first_token_timeout_seconds"`
	MaxRetries               int              `yaml:"max_retries"`
	// ContextWindow in tokens; 0 looks the size up by model name.
	ContextWindow int `yaml:"context_window"`
	// CacheBreakpoints: whether requests mark where the cacheable prefix
	// ends (cache_control), for APIs that bill a cached prefix only when
	// told: "auto" (default) marks where the API is known to take them
	// (kind anthropic; Anthropic and Gemini models on OpenRouter), "on"
	// always, "off" never.
	CacheBreakpoints string `yaml:"cache_breakpoints"`
}

// Defaults of a provider entry.
const (
	DefaultKind              = "openai"
	DefaultTimeout           = 120 * time.Second
	DefaultFirstTokenTimeout = 60 * time.Second
	DefaultMaxRetries        = 2
	DefaultCacheBreakpoints  = CacheAuto
)

// The values of cache_breakpoints.
const (
	CacheAuto = "auto"
	CacheOn   = "on"
	CacheOff  = "off"
)

// SetDefaults fills a provider entry that appears only in the file.
func (c *Config) SetDefaults() {
	c.Kind = DefaultKind
	c.APIKeys = []setting.Secret{}
	c.TimeoutSeconds = int(DefaultTimeout / time.Second)
	c.FirstTokenTimeoutSeconds = int(DefaultFirstTokenTimeout / time.Second)
	c.MaxRetries = DefaultMaxRetries
	c.CacheBreakpoints = DefaultCacheBreakpoints
}

// Validate checks the entry against the registered adapters: its kind
// must be one, and base_url is required unless its adapter has a default.
func (c Config) Validate(p *setting.Problems, adapters []Adapter) {
	p.Enum("kind", c.Kind, Kinds(adapters))
	a, _ := Find(adapters, c.Kind)
	p.HTTPURL("base_url", c.BaseURL, a.BaseURL == "")
	if strings.TrimSpace(c.Model) == "" {
		p.Add("model", "must not be empty")
	}
	p.Min("timeout_seconds", c.TimeoutSeconds, 1)
	p.Min("first_token_timeout_seconds", c.FirstTokenTimeoutSeconds, 1)
	p.Between("max_retries", c.MaxRetries, 0, 10)
	p.Min("context_window", c.ContextWindow, 0)
	if c.CacheBreakpoints != "" { // "" is auto
		p.Enum("cache_breakpoints", c.CacheBreakpoints, []string{CacheAuto, CacheOn, CacheOff})
	}
}

// Settings is the entry an adapter builds its client from, its key
// resolved through getenv.
func (c Config) Settings(name string, getenv func(string) string) Settings {
	key, _ := c.APIKey.Resolve(getenv)
	var spare []string
	for _, s := range c.APIKeys {
		if k, _ := s.Resolve(getenv); k != "" {
			spare = append(spare, k)
		}
	}
	return Settings{Name: name, Kind: c.Kind, BaseURL: c.BaseURL, APIKey: key, SpareKeys: spare, Model: c.Model,
		Timeout:           time.Duration(c.TimeoutSeconds) * time.Second,
		FirstTokenTimeout: time.Duration(c.FirstTokenTimeoutSeconds) * time.Second,
		MaxRetries:        c.MaxRetries, CacheBreakpoints: c.CacheBreakpoints}
}

// Settings are what every adapter is given: where, as whom, which model,
// and how long to wait.
type Settings struct {
	Name    string // the provider's name in core.providers, in responses, errors and logs
	Kind    string // the adapter
	BaseURL string
	APIKey  string // resolved; "" sends none
	// SpareKeys are the api_keys after APIKey: the daemon builds a client
	// per key, and the chain turns to the next key when one is refused.
	SpareKeys []string
	Model     string // used when a request names none

	Timeout           time.Duration // whole call including retries
	FirstTokenTimeout time.Duration // per attempt, until the first streamed token
	MaxRetries        int           // retries before the first token; 0 none
	CacheBreakpoints  string        // CacheAuto, CacheOn or CacheOff ("" = auto)
}

// Adapter makes clients for one provider API. Registering one (a line in
// config's ProviderAdapters) is all a native provider needs beyond its
// package: the chain, the window table, the config entry and its
// validation are shared.
type Adapter struct {
	Kind string
	// BaseURL is the API's URL for an entry that sets no base_url; ""
	// makes base_url required.
	BaseURL string
	New     func(s Settings, log *slog.Logger) (beamclaw.Provider, error)
}

// Kinds are the adapters' kinds, for validation and messages.
func Kinds(adapters []Adapter) []string {
	out := make([]string, len(adapters))
	for i, a := range adapters {
		out[i] = a.Kind
	}
	return out
}

// Find returns the adapter of kind.
func Find(adapters []Adapter, kind string) (Adapter, bool) {
	for _, a := range adapters {
		if a.Kind == kind {
			return a, true
		}
	}
	return Adapter{}, false
}
