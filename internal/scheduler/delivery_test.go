package scheduler

import (
	"encoding/json"
	"testing"
)

func TestParseDelivery(t *testing.T) {
	cases := []struct {
		in, want, err string
	}{
		{"tui", "tui", ""},
		{"WS", "ws", ""},
		{"silent", "silent", ""},
		{"telegram:123456", "telegram:123456", ""},
		{"telegram:-1001234567890", "telegram:-1001234567890", ""},
		{"telegram:@beamclaw_news", "telegram:@beamclaw_news", ""},
		{"webhook:https://example.com/hook?t=1", "webhook:https://example.com/hook?t=1", ""},
		{"webhook:http://127.0.0.1:8080/x", "webhook:http://127.0.0.1:8080/x", ""},
		{"tui:extra", "", `delivery "tui:extra": tui takes no target`},
		{"telegram:", "", `delivery "telegram:": want ` + deliveryForms},
		// a channel's target is the channel's to check (Options.CheckTarget)
		{"telegram:@ab", "telegram:@ab", ""},
		{"email:me@x", "email:me@x", ""},
		{"e mail:me@x", "", `delivery "e mail:me@x": want ` + deliveryForms},
		{"tg", "", `delivery "tg": want ` + deliveryForms},
		{"webhook:ci", "webhook:ci", ""},
		{"webhook:ftp://x/y", "", `delivery "webhook:ftp://x/y": want webhook:http://host/path, webhook:https://host/path or webhook:<endpoint of the webhook channel>`},
		{"webhook:/relative", "", `delivery "webhook:/relative": want webhook:http://host/path, webhook:https://host/path or webhook:<endpoint of the webhook channel>`},
	}
	for _, tc := range cases {
		d, err := ParseDelivery(tc.in)
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("ParseDelivery(%q) err = %v, want %s", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("ParseDelivery(%q): %v", tc.in, err)
		case tc.err == "" && d.String() != tc.want:
			t.Errorf("ParseDelivery(%q) = %s, want %s", tc.in, d, tc.want)
		}
	}
}

func TestDeliveryJSON(t *testing.T) {
	for _, d := range []Delivery{{}, {Kind: "telegram", Target: "42"}, {Kind: DeliverSilent}} {
		b, err := json.Marshal(struct{ D Delivery }{d})
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ D Delivery }
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if back.D != d {
			t.Errorf("%s came back as %+v", b, back.D)
		}
	}
}
