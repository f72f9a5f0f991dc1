package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/channel/telegram"
	"github.com/beamclaw/beamclaw-go/internal/channel/webhook"
	"github.com/beamclaw/beamclaw-go/internal/console"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
)

// Gateway configures the HTTP/WebSocket server and the channels.
type Gateway struct {
	// The listener, token, proxies, rate limit and /ws are the gateway
	// package's keys, inlined: gateway.http.addr...
	Server   `yaml:",inline"`
	Channels Channels `yaml:"channels"`
	// Console is the web console's section (gateway.console), owned by
	// the console package.
	Console console.Config `yaml:"console"`
}

// Server is the gateway package's section, inlined in gateway.
type Server = gateway.Config

// Channels holds the per-channel settings. A field whose type implements
// channel.Section is a registered channel: that line is its registration
// (Sections lists them; the daemon builds, supervises, mounts and
// delivers to each through its Module).
type Channels struct {
	Telegram telegram.Config `yaml:"telegram"`
	TUI      TUI             `yaml:"tui"`
	Webhook  webhook.Config  `yaml:"webhook"`
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

// CheckDelivery refuses a scheduled delivery to a channel that is not
// registered, takes no deliveries or is off, or to a target the channel
// does not take (a webhook endpoint not configured, a Telegram chat that
// is not a chat id); the built-in forms and direct webhooks pass.
func (c *Config) CheckDelivery(d scheduler.Delivery) error {
	if d.Direct() || d.Builtin() {
		return nil
	}
	var takers []string
	for _, s := range c.Gateway.Channels.Sections() {
		m := s.Module()
		if !m.Delivers {
			continue
		}
		takers = append(takers, string(m.Name))
		if m.Name != beamclaw.Channel(d.Kind) {
			continue
		}
		if !s.Enabled() {
			return fmt.Errorf("delivery %q: the %s channel is off (gateway.channels.%s)", d, d.Kind, d.Kind)
		}
		if tc, ok := s.(channel.TargetChecker); ok {
			if err := tc.CheckTarget(d.Target); err != nil {
				return fmt.Errorf("delivery %q: %w", d, err)
			}
		}
		return nil
	}
	return fmt.Errorf("delivery %q: no channel %q takes scheduled answers (channels that do: %s; or tui, ws, silent, webhook:<URL>)",
		d, d.Kind, strings.Join(takers, ", "))
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

// TUI configures the terminal channel.
type TUI struct {
	Enabled bool `yaml:"enabled"`
}
