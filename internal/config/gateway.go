package config

import (
	"reflect"

	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/channel/webhook"
)

// Gateway configures the HTTP/WebSocket server and the channels.
type Gateway struct {
	HTTP HTTP `yaml:"http"`
	Auth Auth `yaml:"auth"`
	// TrustedProxies are IPs or CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []string  `yaml:"trusted_proxies"`
	RateLimit      RateLimit `yaml:"rate_limit"`
	WS             WS        `yaml:"ws"`
	Channels       Channels  `yaml:"channels"`
}

// HTTP is the listener.
type HTTP struct {
	Addr                     string `yaml:"addr"`
	ReadHeaderTimeoutSeconds int    `yaml:"read_header_timeout_seconds"`
	// ReadTimeoutSeconds bounds the sending of a request body; answers
	// (SSE, slow models) are not cut by it.
	ReadTimeoutSeconds int   `yaml:"read_timeout_seconds"`
	MaxBodyBytes       int64 `yaml:"max_body_bytes"`
	// MaxConnsPerClient caps the open connections of one client address
	// (trusted proxies exempt); 0 = no cap.
	MaxConnsPerClient int `yaml:"max_conns_per_client"`
	// CORSOrigins are the exact browser origins ("https://chat.example.com")
	// allowed to call the API from a web page; empty = none.
	CORSOrigins []string `yaml:"cors_origins"`
}

// Auth holds the bearer token; an empty token means no authentication,
// which is only allowed on a loopback address.
type Auth struct {
	Token Secret `yaml:"token"`
}

// RateLimit is the per-client sliding window.
type RateLimit struct {
	Enabled       bool `yaml:"enabled"`
	Requests      int  `yaml:"requests"`
	WindowSeconds int  `yaml:"window_seconds"`
	MaxClients    int  `yaml:"max_clients"`
}

// WS configures GET /ws.
type WS struct {
	// AllowedOrigins are exact origins ("https://app.example.com"); requests
	// without an Origin header (non-browser clients) are always allowed.
	AllowedOrigins      []string `yaml:"allowed_origins"`
	MaxMessageBytes     int64    `yaml:"max_message_bytes"`
	SendQueue           int      `yaml:"send_queue"`
	PingIntervalSeconds int      `yaml:"ping_interval_seconds"`
}

// Channels holds the per-channel settings. A field whose type implements
// channel.Section is a registered channel: that line is its registration
// (Sections lists them; the daemon builds, supervises, mounts and
// delivers to each through its Module).
type Channels struct {
	Telegram Telegram       `yaml:"telegram"`
	TUI      TUI            `yaml:"tui"`
	Webhook  webhook.Config `yaml:"webhook"`
}

// Sections are the registered channels' sections, in field order.
func (c Channels) Sections() []channel.Section {
	v := reflect.ValueOf(c)
	var out []channel.Section
	for i := range v.NumField() {
		if s, ok := v.Field(i).Interface().(channel.Section); ok {
			out = append(out, s)
		}
	}
	return out
}

// registeredDefaults sets each registered channel's section to its
// package's defaults.
func (c *Channels) registeredDefaults() {
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if s, ok := v.Field(i).Interface().(channel.Section); ok {
			v.Field(i).Set(reflect.ValueOf(s.Module().Default()))
		}
	}
}

// Telegram configures the Telegram bot channel.
type Telegram struct {
	Enabled        bool           `yaml:"enabled"`
	Token          Secret         `yaml:"token"`
	Mode           string         `yaml:"mode"`
	APIURL         string         `yaml:"api_url"`
	WebhookURL     string         `yaml:"webhook_url"`
	WebhookSecret  Secret         `yaml:"webhook_secret"`
	DMPolicy       string         `yaml:"dm_policy"`
	AllowFrom      []string       `yaml:"allow_from"`
	Groups         TelegramGroups `yaml:"groups"`
	Agent          string         `yaml:"agent"`
	Photo          Photo          `yaml:"photo"`
	Voice          Voice          `yaml:"voice"`
	EditIntervalMs int            `yaml:"edit_interval_ms"`
}

// TelegramGroups lets the bot answer in listed group chats.
type TelegramGroups struct {
	Enabled bool     `yaml:"enabled"`
	Allow   []string `yaml:"allow"`
}

// Photo controls inbound images.
type Photo struct {
	Enabled      bool  `yaml:"enabled"`
	MaxSizeBytes int64 `yaml:"max_size_bytes"`
}

// Voice controls inbound voice notes and their transcription.
type Voice struct {
	Enabled            bool   `yaml:"enabled"`
	MaxDurationSeconds int    `yaml:"max_duration_seconds"`
	STTBaseURL         string `yaml:"stt_base_url"`
	STTAPIKey          Secret `yaml:"stt_api_key"`
	STTModel           string `yaml:"stt_model"`
}

// TUI configures the terminal channel.
type TUI struct {
	Enabled bool `yaml:"enabled"`
}
