package config

import (
	"fmt"
	"net/url"
)

// A2A configures the Agent2Agent protocol: the /a2a endpoints and agent
// cards that let peers call beamclaw's agents, and the peers an agent may
// call with the a2a_call tool.
type A2A struct {
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
	Peers map[string]A2APeer `yaml:"peers"`
}

// A2APeer is another A2A agent. Its token is the secret shared with it: a
// request to /a2a bearing it comes from this peer, and a2a_call presents
// it when calling the peer (only to the host of URL).
type A2APeer struct {
	// URL is where the peer's agent card is (URL/.well-known/agent-card.json);
	// "" for a peer that only calls us.
	URL   string `yaml:"url"`
	Token Secret `yaml:"token"`
}

func defaultA2A() A2A {
	return A2A{
		Enabled:            true,
		Agents:             []string{},
		PushNotifications:  true,
		TaskRetentionHours: 168,
		Peers:              map[string]A2APeer{},
	}
}

func (c *Config) validateA2A(p *problems) {
	a := &c.A2A
	for i, name := range a.Agents {
		p.name(fmt.Sprintf("a2a.agents[%d]", i), name)
	}
	if a.PublicURL != "" {
		u, err := url.Parse(a.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			p.Add("a2a.public_url", "%q is not a base URL like https://agents.example.com", a.PublicURL)
		}
	}
	p.Min("a2a.task_retention_hours", a.TaskRetentionHours, 1)
	tokens := map[string]string{}
	for _, name := range sortedKeys(a.Peers) {
		key, peer := "a2a.peers."+name, a.Peers[name]
		p.name(key, name)
		if name == A2AGatewayCaller {
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

// A2AGatewayCaller is the caller an A2A request authenticated with
// gateway.auth.token acts as.
const A2AGatewayCaller = "gateway"

// validateA2ARuntime checks the peers' tokens when A2A is on: set, and as
// long as a gateway token.
func (c *Config) validateA2ARuntime(p *problems, getenv func(string) string) {
	if !c.A2A.Enabled {
		return
	}
	for _, name := range sortedKeys(c.A2A.Peers) {
		p.secret("a2a.peers."+name+".token", c.A2A.Peers[name].Token, getenv, MinTokenLen)
	}
}
