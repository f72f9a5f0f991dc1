package scheduler

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// DeliveryKind names where a job's answer goes.
type DeliveryKind string

// Delivery kinds.
const (
	DeliverTelegram DeliveryKind = "telegram" // telegram:<chat id or @channel>
	DeliverTUI      DeliveryKind = "tui"      // the user's open terminal UIs
	DeliverWS       DeliveryKind = "ws"       // the user's open WebSocket clients
	DeliverWebhook  DeliveryKind = "webhook"  // webhook:<http or https URL>, a JSON POST; webhook:<endpoint>, the webhook channel
	DeliverSilent   DeliveryKind = "silent"   // nowhere (the answer stays in the session)
)

// deliveryForms is for error messages and the tool schema.
const deliveryForms = "telegram:<chat>, tui, ws, webhook:<URL>, webhook:<endpoint> or silent"

// Delivery is a parsed delivery target. It is stored as its string.
type Delivery struct {
	Kind   DeliveryKind
	Target string // the chat of telegram, the URL of webhook
}

// ParseDelivery parses "telegram:<chat>", "tui", "ws", "webhook:URL" or
// "silent".
func ParseDelivery(s string) (Delivery, error) {
	s = strings.TrimSpace(s)
	kind, target, hasTarget := strings.Cut(s, ":")
	d := Delivery{Kind: DeliveryKind(strings.ToLower(kind)), Target: target}
	fail := func(why string) (Delivery, error) {
		return Delivery{}, fmt.Errorf("delivery %q: %s", s, why)
	}
	switch d.Kind {
	case DeliverTUI, DeliverWS, DeliverSilent:
		if hasTarget {
			return fail(string(d.Kind) + " takes no target")
		}
	case DeliverTelegram:
		if why := checkChat(target); why != "" {
			return fail(why)
		}
	case DeliverWebhook:
		if beamclaw.IsName(target) {
			return d, nil // an endpoint of the webhook channel
		}
		u, err := url.Parse(target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("want webhook:http://host/path, webhook:https://host/path or webhook:<endpoint of the webhook channel>")
		}
	default:
		return fail("want " + deliveryForms)
	}
	return d, nil
}

func checkChat(chat string) string {
	if name, ok := strings.CutPrefix(chat, "@"); ok {
		if len(name) < 4 || strings.IndexFunc(name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
		}) >= 0 {
			return "a Telegram channel name is @ and at least 4 letters, digits or _"
		}
		return ""
	}
	if _, err := strconv.ParseInt(chat, 10, 64); err != nil {
		return "want telegram:<chat id> (a number) or telegram:@channel"
	}
	return ""
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
