package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 65535 {
		return -1, fmt.Errorf("bad port %q", s)
	}
	return n, nil
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

func (c *Config) validateGateway(p *problems) {
	g := &c.Gateway
	if host, ok := p.addr("gateway.http.addr", g.HTTP.Addr); ok && !IsLoopback(host) && g.Auth.Token.IsZero() {
		p.Add("gateway.http.addr", "refusing to bind %s without gateway.auth.token (set token: {env: VAR} with at least 32 characters, or bind 127.0.0.1)", g.HTTP.Addr)
	}
	p.Min("gateway.http.read_header_timeout_seconds", g.HTTP.ReadHeaderTimeoutSeconds, 1)
	p.Min("gateway.http.read_timeout_seconds", g.HTTP.ReadTimeoutSeconds, 1)
	p.Min("gateway.http.max_conns_per_client", g.HTTP.MaxConnsPerClient, 0)
	for i, o := range g.HTTP.CORSOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || o != u.Scheme+"://"+u.Host {
			p.Add(fmt.Sprintf("gateway.http.cors_origins[%d]", i), "%q is not an origin: write scheme://host[:port], e.g. https://chat.example.com (no path, no wildcard)", o)
		}
	}
	p.Min64("gateway.http.max_body_bytes", g.HTTP.MaxBodyBytes, 1)
	for i, tp := range g.TrustedProxies {
		if _, err := netip.ParsePrefix(tp); err != nil {
			if _, err := netip.ParseAddr(tp); err != nil {
				p.Add(fmt.Sprintf("gateway.trusted_proxies[%d]", i), "%q is not an IP address or CIDR", tp)
			}
		}
	}
	r := g.RateLimit
	p.Min("gateway.rate_limit.requests", r.Requests, 1)
	p.Min("gateway.rate_limit.window_seconds", r.WindowSeconds, 1)
	p.Min("gateway.rate_limit.max_clients", r.MaxClients, 1)
	for i, o := range g.WS.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			p.Add(fmt.Sprintf("gateway.ws.allowed_origins[%d]", i), "%q is not an origin like https://app.example.com", o)
		}
	}
	p.Min64("gateway.ws.max_message_bytes", g.WS.MaxMessageBytes, 1)
	p.Min("gateway.ws.send_queue", g.WS.SendQueue, 1)
	p.Min("gateway.ws.ping_interval_seconds", g.WS.PingIntervalSeconds, 1)
	validateTelegram(p, "gateway.channels.telegram", &g.Channels.Telegram)
}

func validateTelegram(p *problems, key string, t *Telegram) {
	p.Enum(key+".mode", t.Mode, TelegramModes)
	p.Enum(key+".dm_policy", t.DMPolicy, DMPolicies)
	p.HTTPURL(key+".api_url", t.APIURL, true)
	p.name(key+".agent", t.Agent)
	p.Min(key+".edit_interval_ms", t.EditIntervalMs, 0)
	p.Min64(key+".photo.max_size_bytes", t.Photo.MaxSizeBytes, 1)
	p.Min(key+".voice.max_duration_seconds", t.Voice.MaxDurationSeconds, 1)
	p.HTTPURL(key+".voice.stt_base_url", t.Voice.STTBaseURL, t.Voice.Enabled)
	p.HTTPURL(key+".webhook_url", t.WebhookURL, false)
	if !t.Enabled {
		return
	}
	if t.Token.IsZero() {
		p.Add(key+".token", "required when the channel is enabled: write {env: TELEGRAM_BOT_TOKEN}")
	}
	if t.Mode == "webhook" {
		if !strings.HasPrefix(t.WebhookURL, "https://") {
			p.Add(key+".webhook_url", "webhook mode needs an https:// URL Telegram can reach")
		}
		if t.WebhookSecret.IsZero() {
			p.Add(key+".webhook_secret", "webhook mode needs a secret: write {env: TELEGRAM_WEBHOOK_SECRET}")
		}
	}
}

// MinTokenLen is the shortest gateway.auth.token accepted.
const MinTokenLen = setting.MinTokenLen

// ValidateRuntime checks what needs the environment, through getenv: the
// gateway token (set when configured, at least MinTokenLen characters),
// the Telegram token and webhook secret when that channel is enabled, the
// A2A peers' tokens (as long as a gateway token) when A2A is enabled. It
// runs at daemon start; `config check` may run where the variables are not
// set. It reports every problem at once.
func (c *Config) ValidateRuntime(getenv func(string) string) error {
	var p problems
	p.Secret("gateway.auth.token", c.Gateway.Auth.Token, getenv, MinTokenLen)
	if t := c.Gateway.Channels.Telegram; t.Enabled {
		p.Secret("gateway.channels.telegram.token", t.Token, getenv, 1)
		if t.Mode == "webhook" {
			p.Secret("gateway.channels.telegram.webhook_secret", t.WebhookSecret, getenv, 16)
		}
	}
	c.A2A.ValidateRuntime(p.Under("a2a"), getenv)
	return p.Err()
}

// ListenHost returns the host part of gateway.http.addr ("" for all
// interfaces).
func (c *Config) ListenHost() string {
	host, _, err := net.SplitHostPort(c.Gateway.HTTP.Addr)
	if err != nil {
		return ""
	}
	return host
}

// MissingSecrets lists the dotted keys of configured secrets whose
// variables are unset, for `beamclaw doctor` warnings.
func (c *Config) MissingSecrets(getenv func(string) string) []string {
	var missing []string
	walkSecrets(c, func(key string, env string) {
		if env == "" {
			return
		}
		if getenv == nil || getenv(env) == "" {
			missing = append(missing, key)
		}
	})
	slices.Sort(missing)
	return missing
}

// SecretValues returns the resolved value of every secret the config
// references, so that the scrubber can remove them by value wherever they
// appear, whatever their shape.
func (c *Config) SecretValues(getenv func(string) string) []string {
	var out []string
	walkSecrets(c, func(_ string, env string) {
		if env == "" || getenv == nil {
			return
		}
		if v := getenv(env); v != "" {
			out = append(out, v)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}
