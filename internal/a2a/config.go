package a2a

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the a2a section of config.yaml: the /a2a endpoints and agent
// cards that let peers call beamclaw's agents, and the peers an agent may
// call with the a2a_call tool. The package owns it.
type Config struct {
	// Enabled serves /a2a and the agent cards. They also need a token to
	// check (gateway.auth.token or a peer's token): without one they stay
	// off, and the start log says why.
	Enabled bool `yaml:"enabled"`
	// Agents are the agents peers may call; empty means every agent. The
	// first one listed (or core.default_agent) answers on /a2a itself.
	Agents []string `yaml:"agents"`
	// PublicURL is the base URL peers reach the gateway at, written into
	// the agent cards; "" means the host the card was requested from.
	PublicURL string `yaml:"public_url"`
	// PushNotifications accepts push-notification configs; their URLs must
	// be public (checked like the curl tool's targets).
	PushNotifications bool `yaml:"push_notifications"`
	// TaskRetentionHours is how long finished tasks stay queryable.
	TaskRetentionHours int `yaml:"task_retention_hours"`
	// Peers are named A2A agents, by name.
	Peers map[string]PeerConfig `yaml:"peers"`
}

// PeerConfig is another A2A agent. Its token is the secret shared with
// it: a request to /a2a bearing it comes from this peer, and a2a_call
// presents it when calling the peer (only to the host of URL).
type PeerConfig struct {
	// URL is where the peer's agent card is (URL/.well-known/agent-card.json);
	// "" for a peer that only calls us.
	URL   string         `yaml:"url"`
	Token setting.Secret `yaml:"token"`
}

// DefaultRetention is how long finished tasks stay queryable by default.
const DefaultRetention = 7 * 24 * time.Hour

// DefaultConfig is the section when the file says nothing.
func DefaultConfig() Config {
	return Config{
		Enabled:            true,
		Agents:             []string{},
		PushNotifications:  true,
		TaskRetentionHours: int(DefaultRetention / time.Hour),
		Peers:              map[string]PeerConfig{},
	}
}

// Validate records every problem of the section under p (the
// environment aside: ValidateRuntime).
func (c Config) Validate(p *setting.Problems) {
	for i, name := range c.Agents {
		if !beamclaw.IsName(name) {
			p.Add(fmt.Sprintf("agents[%d]", i), "%q is not a valid name (1-64 of A-Z a-z 0-9 _ -)", name)
		}
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			p.Add("public_url", "%q is not a base URL like https://agents.example.com", c.PublicURL)
		}
	}
	p.Min("task_retention_hours", c.TaskRetentionHours, 1)
	tokens := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(c.Peers)) {
		key, peer := "peers."+name, c.Peers[name]
		switch {
		case !beamclaw.IsName(name):
			p.Add(key, "%q is not a valid name (1-64 of A-Z a-z 0-9 _ -)", name)
		case name == GatewayCaller:
			p.Add(key, "%q names the gateway token's caller; pick another peer name", name)
		}
		p.HTTPURL(key+".url", peer.URL, false)
		if peer.URL == "" && peer.Token.IsZero() {
			p.Add(key, "a peer needs a url (to be called), a token (to call us), or both")
		}
		if env := peer.Token.Env; env != "" {
			if other, dup := tokens[env]; dup {
				p.Add(key+".token", "%s is already the token of peer %q: each peer needs its own token", env, other)
			}
			tokens[env] = name
		}
	}
}

// ValidateRuntime checks the peers' tokens when A2A is on: set, and as
// long as a gateway token.
func (c Config) ValidateRuntime(p *setting.Problems, getenv func(string) string) {
	if !c.Enabled {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(c.Peers)) {
		p.Secret("peers."+name+".token", c.Peers[name].Token, getenv, setting.MinTokenLen)
	}
}

// Options is the section as the edge's Options (nil when A2A is off); the
// wiring adds the gateway token, the default agent, sessions, agents,
// store, events, logger and version.
func (c Config) Options(getenv func(string) string) *Options {
	if !c.Enabled {
		return nil
	}
	o := &Options{Exposed: c.Agents, PublicURL: c.PublicURL, Push: c.PushNotifications,
		Retention: time.Duration(c.TaskRetentionHours) * time.Hour}
	for _, name := range slices.Sorted(maps.Keys(c.Peers)) {
		peer := c.Peers[name]
		token, _ := peer.Token.Resolve(getenv)
		o.Peers = append(o.Peers, Peer{Name: name, URL: peer.URL, Token: token})
	}
	return o
}
