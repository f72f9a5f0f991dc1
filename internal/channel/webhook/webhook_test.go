package webhook

import (
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Validate names every problem of an endpoint under its index; a private
// deliver_url needs allow_private_delivery.
func TestValidate(t *testing.T) {
	good := Endpoint{Name: "ci", Secret: setting.Env("CI_SECRET"), Agent: "default", DeliverURL: "https://ci.example.com/a"}
	for _, c := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"good", Config{good}, nil},
		{"duplicate", Config{good, good}, []string{`[1].name: "ci" is already`}},
		{"empty", Config{{}}, []string{"[0].name", "[0].secret: required", "[0].agent", "[0].deliver_url"}},
		{"loopback", Config{{Name: "a", Secret: good.Secret, Agent: "x", DeliverURL: "http://127.0.0.1:9/x"}},
			[]string{"[0].deliver_url: \"http://127.0.0.1:9/x\" is a loopback or private address"}},
		{"localhost allowed", Config{{Name: "a", Secret: good.Secret, Agent: "x", DeliverURL: "http://localhost:9/x", AllowPrivateDelivery: true}}, nil},
		{"private", Config{{Name: "a", Secret: good.Secret, Agent: "x", DeliverURL: "http://10.1.2.3/x"}}, []string{"private address"}},
		{"ftp", Config{{Name: "a", Secret: good.Secret, Agent: "x", DeliverURL: "ftp://ci.example.com/x"}}, []string{"not an http(s) URL"}},
	} {
		var p setting.Problems
		c.cfg.Validate(p.Under("gateway.channels.webhook"))
		err := p.Err()
		if (err == nil) != (len(c.want) == 0) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), "gateway.channels.webhook"+w) && !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v lacks %q", c.name, err, w)
			}
		}
	}
}

// Options leaves out an endpoint whose secret is unset and resolves the
// others.
func TestOptionsResolveSecrets(t *testing.T) {
	cfg := Config{
		{Name: "a", Secret: setting.Env("SET"), Agent: "x", DeliverURL: "https://a.example/x"},
		{Name: "b", Secret: setting.Env("UNSET"), Agent: "x", DeliverURL: "https://b.example/x"},
	}
	eps := cfg.Options(func(k string) string {
		if k == "SET" {
			return "s3cret"
		}
		return ""
	}).([]endpoint)
	if len(eps) != 1 || eps[0].Name != "a" || eps[0].Secret != "s3cret" {
		t.Fatalf("options: %+v", eps)
	}
}

// Sign is HMAC-SHA256 in hex, as the header documents (RFC 4231 case 2).
func TestSign(t *testing.T) {
	got := Sign("Jefe", []byte("what do ya want for nothing?"))
	if got != "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" {
		t.Fatalf("Sign = %s", got)
	}
}

// reply finds the endpoint a user came through.
func TestReply(t *testing.T) {
	for user, want := range map[string]string{
		"webhook:ci:ci-bot": "webhook:ci", "webhook:ci:a:b": "webhook:ci",
		"webhook:ci": "", "webhook::x": "", "tg:42": "", "": "",
	} {
		if got := reply(user); got != want {
			t.Errorf("reply(%q) = %q, want %q", user, got, want)
		}
	}
}

// SignAt signs "<timestamp>.<body>".
func TestSignAt(t *testing.T) {
	if SignAt("k", "1700000000", []byte("b")) != Sign("k", []byte("1700000000.b")) || SignAt("k", "1", []byte("b")) == Sign("k", []byte("b")) {
		t.Fatal("SignAt is not the signature of <timestamp>.<body>")
	}
}
