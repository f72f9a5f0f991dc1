package scheduler

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// DeliveryKind names where a job's answer goes: one of the built-in
// kinds below, or a registered channel that takes deliveries (its name,
// "<channel>:<target>", e.g. telegram:<chat id> or webhook:<endpoint>).
type DeliveryKind string

// Built-in delivery kinds: the gateway's own hubs, a direct POST, nowhere.
const (
	DeliverTUI                  = DeliveryKind(beamclaw.ChannelTUI) // the user's open terminal UIs
	DeliverWS                   = DeliveryKind(beamclaw.ChannelWS)  // the user's open WebSocket clients
	DeliverWebhook DeliveryKind = "webhook"                         // webhook:<http or https URL>, a JSON POST (webhook:<endpoint> is the webhook channel's)
	DeliverSilent  DeliveryKind = "silent"                          // nowhere (the answer stays in the session)
)

// deliveryForms is for error messages and the tool schema.
const deliveryForms = "tui, ws, silent, webhook:<URL>, or <channel>:<target> of a channel that takes answers (telegram:<chat id>, webhook:<endpoint>)"

// Delivery is a parsed delivery target. It is stored as its string.
type Delivery struct {
	Kind   DeliveryKind
	Target string // a channel's target (a chat, an endpoint), or the URL of a direct webhook
}

// ParseDelivery parses a built-in form ("tui", "ws", "silent",
// "webhook:URL") or "<channel>:<target>"; whether a channel takes that
// target is the channel's to say (Options.CheckTarget).
func ParseDelivery(s string) (Delivery, error) {
	s = strings.TrimSpace(s)
	kind, target, hasTarget := strings.Cut(s, ":")
	d := Delivery{Kind: DeliveryKind(strings.ToLower(kind)), Target: target}
	fail := func(why string) (Delivery, error) {
		return Delivery{}, fmt.Errorf("delivery %q: %s", s, why)
	}
	switch {
	case d.Builtin():
		if hasTarget {
			return fail(string(d.Kind) + " takes no target")
		}
	case d.Kind == DeliverWebhook && !beamclaw.IsName(target):
		u, err := url.Parse(target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("want webhook:http://host/path, webhook:https://host/path or webhook:<endpoint of the webhook channel>")
		}
	case !beamclaw.IsName(string(d.Kind)) || strings.TrimSpace(target) == "":
		return fail("want " + deliveryForms)
	}
	return d, nil
}

// Builtin reports whether the gateway delivers the answer itself (open
// terminals or WebSocket clients) or nobody does (silent).
func (d Delivery) Builtin() bool {
	return d.Kind == DeliverTUI || d.Kind == DeliverWS || d.Kind == DeliverSilent
}

// Direct reports whether the scheduler posts the answer itself (a
// webhook URL) rather than a channel delivering it.
func (d Delivery) Direct() bool {
	return d.Kind == DeliverWebhook && !beamclaw.IsName(d.Target)
}

func (d Delivery) String() string {
	if d.Target == "" {
		return string(d.Kind)
	}
	return string(d.Kind) + ":" + d.Target
}

// MarshalText implements encoding.TextMarshaler.
func (d Delivery) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler ("" is the zero
// Delivery).
func (d *Delivery) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Delivery{}
		return nil
	}
	v, err := ParseDelivery(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Message is an answer to deliver.
type Message struct {
	JobID     string
	Agent     string
	UserID    string
	SessionID string
	Text      string
	Heartbeat bool
	Time      time.Time
}

// Deliverer sends an answer to a telegram, tui or ws target. The daemon
// implements it over the channels; webhook and silent are handled here.
type Deliverer interface {
	Deliver(ctx context.Context, to Delivery, msg Message) error
}
