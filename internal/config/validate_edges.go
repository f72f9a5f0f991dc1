package config

import (
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

func (c *Config) validateGateway(p *problems) {
	c.Gateway.Server.Validate(p.Under("gateway"))
	c.Gateway.Console.Validate(p.Under("gateway.console"))
	for _, s := range c.Gateway.Channels.Sections() {
		s.Validate(p.Under("gateway.channels." + string(s.Module().Name)))
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
	c.Gateway.Server.ValidateRuntime(p.Under("gateway"), getenv)
	c.A2A.ValidateRuntime(p.Under("a2a"), getenv)
	c.Cluster.ValidateRuntime(p.Under("cluster"), getenv)
	for _, s := range c.Gateway.Channels.Sections() {
		if rv, ok := s.(channel.RuntimeValidator); ok && s.Enabled() {
			rv.ValidateRuntime(p.Under("gateway.channels."+string(s.Module().Name)), getenv)
		}
	}
	return p.Err()
}

// MissingSecrets lists the dotted keys of configured secrets whose
// variables are unset, for `beamclaw doctor` warnings.
func (c *Config) MissingSecrets(getenv func(string) string) []string {
	var missing []string
	walkSecrets(c, func(key string, env string) {
		// The cluster's token has a default name; an off cluster needs none.
		if env == "" || (strings.HasPrefix(key, "cluster.") && !c.Cluster.Enabled) {
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
