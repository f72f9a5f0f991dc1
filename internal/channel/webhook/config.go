package webhook

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/setting"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// Name is the channel's name (gateway.channels.webhook, the scheduler's
// "webhook:<endpoint>" deliveries).
const Name beamclaw.Channel = "webhook"

// Config is gateway.channels.webhook: the endpoints, each a system that
// posts messages to POST /channels/webhook/<name> and receives the answers
// at its deliver_url.
type Config []Endpoint

// Endpoint is one connected system.
type Endpoint struct {
	// Name is the endpoint's path segment and its scheduler target.
	Name string `yaml:"name"`
	// Secret signs both directions: X-Beamclaw-Signature is
	// sha256=<hex HMAC-SHA256 of the raw body>.
	Secret setting.Secret `yaml:"secret"`
	// Agent answers the endpoint's messages.
	Agent string `yaml:"agent"`
	// DeliverURL receives the answers (a signed JSON POST).
	DeliverURL string `yaml:"deliver_url"`
	// AllowPrivateDelivery lets DeliverURL be loopback or private (a local
	// automation); otherwise such an address is refused, when configured
	// and when dialled.
	AllowPrivateDelivery bool `yaml:"allow_private_delivery"`
}

// DefaultConfig is no endpoint.
func DefaultConfig() Config { return Config{} }

// Module describes the channel to the daemon.
func (Config) Module() channel.Module {
	return channel.Module{Name: Name, Autonomy: beamclaw.Supervised, Delivers: true, Reply: reply,
		Default: func() channel.Section { return DefaultConfig() }, New: newChannel}
}

// reply is the endpoint a user came through: "webhook:<endpoint>" for the
// user "webhook:<endpoint>:<sender's user>".
func reply(userID string) string {
	rest, ok := strings.CutPrefix(userID, string(Name)+":")
	if !ok {
		return ""
	}
	endpoint, _, ok := strings.Cut(rest, ":")
	if !ok || endpoint == "" {
		return ""
	}
	return string(Name) + ":" + endpoint
}

// Enabled reports whether any endpoint is configured.
func (c Config) Enabled() bool { return len(c) > 0 }

// Validate records every problem of the section under p.
func (c Config) Validate(p *setting.Problems) {
	seen := map[string]int{}
	for i, e := range c {
		ep := p.Under(fmt.Sprintf("[%d]", i))
		if !beamclaw.IsName(e.Name) {
			ep.Add("name", "%q is not a name (1-64 of A-Z a-z 0-9 _ -)", e.Name)
		} else if j, dup := seen[e.Name]; dup {
			ep.Add("name", "%q is already the name of endpoint [%d]", e.Name, j)
		} else {
			seen[e.Name] = i
		}
		if e.Secret.IsZero() {
			ep.Add("secret", "required: {env: VAR} holding the HMAC key shared with the system")
		}
		if !beamclaw.IsName(e.Agent) {
			ep.Add("agent", "%q is not an agent name", e.Agent)
		}
		ep.HTTPURL("deliver_url", e.DeliverURL, true)
		if private(e.DeliverURL) && !e.AllowPrivateDelivery {
			ep.Add("deliver_url", "%q is a loopback or private address: set allow_private_delivery: true to allow it", e.DeliverURL)
		}
	}
}

// private reports whether a URL names localhost or an IP literal the
// SSRF guard refuses (loopback, private, link-local, metadata...); names
// that resolve there are refused when dialled.
func private(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && builtin.CheckPublicIP(ip) != nil
}

// CheckTarget accepts the name of a configured endpoint.
func (c Config) CheckTarget(target string) error {
	for _, e := range c {
		if e.Name == target {
			return nil
		}
	}
	return fmt.Errorf("gateway.channels.%s has no endpoint %q", Name, target)
}

// MinSecretLen is the shortest HMAC key accepted.
const MinSecretLen = 16

// ValidateRuntime checks each endpoint's secret in getenv's environment:
// set, and at least MinSecretLen characters.
func (c Config) ValidateRuntime(p *setting.Problems, getenv func(string) string) {
	for i, e := range c {
		p.Secret(fmt.Sprintf("[%d].secret", i), e.Secret, getenv, MinSecretLen)
	}
}

// endpoint is an Endpoint with its secret resolved.
type endpoint struct {
	Name, Secret, Agent, DeliverURL string
	AllowPrivate                    bool
}

// Options resolves the endpoints' secrets; an endpoint whose variable is
// unset is left out (start refuses that: ValidateRuntime).
func (c Config) Options(getenv func(string) string) any {
	out := make([]endpoint, 0, len(c))
	for _, e := range c {
		secret, ok := e.Secret.Resolve(getenv)
		if !ok {
			continue
		}
		out = append(out, endpoint{Name: e.Name, Secret: secret, Agent: e.Agent, DeliverURL: e.DeliverURL,
			AllowPrivate: e.AllowPrivateDelivery})
	}
	return out
}
