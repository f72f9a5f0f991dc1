package gateway

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the gateway's own keys of config.yaml's gateway section
// (inlined there beside the channels): the listener, the bearer token,
// trusted proxies, the rate limit and /ws. The package owns it.
type Config struct {
	HTTP HTTPConfig `yaml:"http"`
	Auth AuthConfig `yaml:"auth"`
	// TrustedProxies are IPs or CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []string        `yaml:"trusted_proxies"`
	RateLimit      RateLimitConfig `yaml:"rate_limit"`
	WS             WSConfig        `yaml:"ws"`
}

// HTTPConfig is gateway.http: the listener.
type HTTPConfig struct {
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
	// AllowedHosts are host names (no port) the Host header may carry
	// besides the loopback names a loopback bind always accepts
	// (localhost, 127.0.0.1, ::1): a name a reverse proxy forwards. On a
	// loopback bind every other Host is refused (DNS rebinding); on any
	// other bind the list, when set, is the only names accepted.
	AllowedHosts []string `yaml:"allowed_hosts"`
}

// AuthConfig holds the bearer token; an empty token means no
// authentication, which is only allowed on a loopback address.
type AuthConfig struct {
	Token setting.Secret `yaml:"token"`
}

// RateLimitConfig is the per-client sliding window.
type RateLimitConfig struct {
	Enabled       bool `yaml:"enabled"`
	Requests      int  `yaml:"requests"`
	WindowSeconds int  `yaml:"window_seconds"`
	MaxClients    int  `yaml:"max_clients"`
}

// WSConfig is gateway.ws: GET /ws.
type WSConfig struct {
	// AllowedOrigins are exact origins ("https://app.example.com"); requests
	// without an Origin header (non-browser clients) are always allowed.
	AllowedOrigins      []string `yaml:"allowed_origins"`
	MaxMessageBytes     int64    `yaml:"max_message_bytes"`
	SendQueue           int      `yaml:"send_queue"`
	PingIntervalSeconds int      `yaml:"ping_interval_seconds"`
}

// DefaultAddr is where the gateway listens unless configured otherwise.
const DefaultAddr = "127.0.0.1:18800"

// DefaultConfig is the section when the file says nothing.
func DefaultConfig() Config {
	return Config{
		HTTP: HTTPConfig{Addr: DefaultAddr, ReadHeaderTimeoutSeconds: 5, ReadTimeoutSeconds: 30,
			MaxBodyBytes: 1 << 20, MaxConnsPerClient: 256, CORSOrigins: []string{}, AllowedHosts: []string{}},
		TrustedProxies: []string{},
		RateLimit:      RateLimitConfig{Enabled: true, Requests: 60, WindowSeconds: 60, MaxClients: 10000},
		WS: WSConfig{AllowedOrigins: []string{}, MaxMessageBytes: DefaultWSMaxMessage, SendQueue: DefaultWSSendQueue,
			PingIntervalSeconds: int(DefaultWSPingInterval / time.Second)},
	}
}

// IsLoopback reports whether a listen host ("127.0.0.1", "::1",
// "localhost") only accepts local connections. An empty host listens on
// every interface.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// ListenHost is the host part of http.addr ("" for all interfaces).
func (c Config) ListenHost() string {
	host, _, err := net.SplitHostPort(c.HTTP.Addr)
	if err != nil {
		return ""
	}
	return host
}

// Validate records every problem of the keys under p (the gateway
// section); secrets are checked by ValidateRuntime.
func (c Config) Validate(p *setting.Problems) {
	if host, ok := addr(p, "http.addr", c.HTTP.Addr); ok && !IsLoopback(host) && c.Auth.Token.IsZero() {
		p.Add("http.addr", "refusing to bind %s without gateway.auth.token (set token: {env: VAR} with at least 32 characters, or bind 127.0.0.1)", c.HTTP.Addr)
	}
	p.Min("http.read_header_timeout_seconds", c.HTTP.ReadHeaderTimeoutSeconds, 1)
	p.Min("http.read_timeout_seconds", c.HTTP.ReadTimeoutSeconds, 1)
	p.Min("http.max_conns_per_client", c.HTTP.MaxConnsPerClient, 0)
	for i, o := range c.HTTP.CORSOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || o != u.Scheme+"://"+u.Host {
			p.Add(fmt.Sprintf("http.cors_origins[%d]", i), "%q is not an origin: write scheme://host[:port], e.g. https://chat.example.com (no path, no wildcard)", o)
		}
	}
	p.Min64("http.max_body_bytes", c.HTTP.MaxBodyBytes, 1)
	for i, h := range c.HTTP.AllowedHosts {
		if h == "" || (strings.ContainsAny(h, ":/ *") && !isIPv6(h)) {
			p.Add(fmt.Sprintf("http.allowed_hosts[%d]", i), "%q is not a host name: write the name alone, e.g. beamclaw.example.com (no scheme, port or wildcard)", h)
		}
	}
	for i, tp := range c.TrustedProxies {
		if _, err := ParseTrusted([]string{tp}); err != nil {
			p.Add(fmt.Sprintf("trusted_proxies[%d]", i), "%q is not an IP address or CIDR", tp)
		}
	}
	r := c.RateLimit
	p.Min("rate_limit.requests", r.Requests, 1)
	p.Min("rate_limit.window_seconds", r.WindowSeconds, 1)
	p.Min("rate_limit.max_clients", r.MaxClients, 1)
	for i, o := range c.WS.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			p.Add(fmt.Sprintf("ws.allowed_origins[%d]", i), "%q is not an origin like https://app.example.com", o)
		}
	}
	p.Min64("ws.max_message_bytes", c.WS.MaxMessageBytes, 1)
	p.Min("ws.send_queue", c.WS.SendQueue, 1)
	p.Min("ws.ping_interval_seconds", c.WS.PingIntervalSeconds, 1)
}

// ValidateRuntime checks the token in getenv's environment: set when
// configured, at least setting.MinTokenLen characters.
func (c Config) ValidateRuntime(p *setting.Problems, getenv func(string) string) {
	p.Secret("auth.token", c.Auth.Token, getenv, setting.MinTokenLen)
}

func addr(p *setting.Problems, key, v string) (host string, ok bool) {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		p.Add(key, "%q is not host:port", v)
		return "", false
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		p.Add(key, "port %q must be 0-65535", port)
		return "", false
	}
	return host, true
}

// Options is the section as the Server's Options (the token resolved
// through getenv); the wiring adds the routes, metrics, health, status,
// logger and clock.
func (c Config) Options(getenv func(string) string) (Options, error) {
	trusted, err := ParseTrusted(c.TrustedProxies)
	if err != nil {
		return Options{}, err
	}
	token, _ := c.Auth.Token.Resolve(getenv)
	o := Options{Token: token, TrustedProxies: trusted, MaxBodyBytes: c.HTTP.MaxBodyBytes,
		ReadHeaderTimeout: time.Duration(c.HTTP.ReadHeaderTimeoutSeconds) * time.Second,
		ReadTimeout:       time.Duration(c.HTTP.ReadTimeoutSeconds) * time.Second,
		MaxConnsPerClient: c.HTTP.MaxConnsPerClient, CORSOrigins: c.HTTP.CORSOrigins,
		AllowedHosts: c.allowedHosts()}
	if c.RateLimit.Enabled {
		o.RateLimit = RateLimit{Requests: c.RateLimit.Requests,
			Window: time.Duration(c.RateLimit.WindowSeconds) * time.Second, MaxClients: c.RateLimit.MaxClients}
	}
	return o, nil
}

// allowedHosts is the Host allowlist of the listener: the loopback names
// plus http.allowed_hosts on a loopback bind; http.allowed_hosts (empty:
// no check) on any other.
func (c Config) allowedHosts() []string {
	if IsLoopback(c.ListenHost()) {
		return append([]string{"localhost", "127.0.0.1", "::1"}, c.HTTP.AllowedHosts...)
	}
	return slices.Clone(c.HTTP.AllowedHosts)
}

func isIPv6(h string) bool {
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.Is6()
}

// WSOptions is gateway.ws as the WebSocket hub's Options; the wiring adds
// the sessions, the default agent, users and agents.
func (c Config) WSOptions() WSOptions {
	return WSOptions{AllowedOrigins: c.WS.AllowedOrigins, SendQueue: c.WS.SendQueue,
		PingInterval: time.Duration(c.WS.PingIntervalSeconds) * time.Second, MaxMessageBytes: c.WS.MaxMessageBytes}
}
