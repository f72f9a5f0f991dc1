package config

import (
	"fmt"
	"reflect"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/channel/telegram"
	"github.com/beamclaw/beamclaw-go/internal/channel/webhook"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/scheduler"
)

// Gateway configures the HTTP/WebSocket server and the channels.
type Gateway struct {
	// The listener, token, proxies, rate limit and /ws are the gateway
	// package's keys, inlined: gateway.http.addr...
	Server   `yaml:",inline"`
	Channels Channels `yaml:"channels"`
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

// CheckDelivery refuses a scheduled delivery to a registered channel that
// is off or to a target it does not have (webhook:<endpoint> of no
// configured endpoint); direct and built-in deliveries pass.
func (c *Config) CheckDelivery(d scheduler.Delivery) error {
	if d.Direct() {
		return nil
	}
	for _, s := range c.Gateway.Channels.Sections() {
		if s.Module().Name != beamclaw.Channel(d.Kind) {
			continue
		}
		tc, ok := s.(channel.TargetChecker)
		switch {
		case !s.Enabled():
			return fmt.Errorf("delivery %q: the %s channel is off (gateway.channels.%s)", d, d.Kind, d.Kind)
		case ok && !tc.HasTarget(d.Target):
			return fmt.Errorf("delivery %q: gateway.channels.%s has no %q", d, d.Kind, d.Target)
		}
	}
	return nil
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
