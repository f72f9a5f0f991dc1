package sandbox

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/scrub"
	"github.com/beamclaw/beamclaw-go/internal/scrub/scrubtest"
)

func mustTokenizer(t testing.TB, extra ...string) *Tokenizer {
	t.Helper()
	tk, err := NewTokenizer(extra)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestTokenizeKinds(t *testing.T) {
	tk := mustTokenizer(t, `EMP-[0-9]{6}`)
	cases := []struct {
		name, in, kind string
	}{
		{"email", "write to alice.smith+tag@mail.example.co.uk now", KindEmail},
		{"e164 phone", "call +44 20 7946 0958 today", KindPhone},
		{"nanp phone", "call (555) 123-4567 today", KindPhone},
		{"visa", "pay with 4111 1111 1111 1111.", KindCard},
		{"amex", "amex 378282246310005", KindCard},
		{"mastercard dashes", "mc 5555-5555-5555-4444 ok", KindCard},
		{"iban grouped", "IBAN DE89 3704 0044 0532 0130 00 please", KindIBAN},
		{"iban compact", "to GB82WEST12345698765432.", KindIBAN},
		{"openai key", "key sk-proj-abcdefghijklmnopqrstuvwxyz123456 end", KindSecret},
		{"github token", "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ ok", KindSecret},
		{"aws key", "AKIAIOSFODNN7EXAMPLE", KindSecret},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", KindSecret},
		{"private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----", KindSecret},
		{"custom", "employee EMP-123456 joined", KindCustom},
	}
	re := regexp.MustCompile(`PII_([A-Z]+)_[0-9a-f]{12}`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := tk.Tokenize(tc.in)
			m := re.FindStringSubmatch(out)
			if m == nil || m[1] != tc.kind {
				t.Fatalf("Tokenize(%q) = %q, want a %s token", tc.in, out, tc.kind)
			}
			if back := tk.Detokenize(out); back != tc.in {
				t.Fatalf("round trip: %q -> %q -> %q", tc.in, out, back)
			}
		})
	}
}

// Every credential shape of the scrubber's table is a SECRET here, whole,
// with a fixture for each of its prefixes.
func TestTokenizeEveryCredentialShape(t *testing.T) {
	tk := mustTokenizer(t)
	examples := scrubtest.Shapes()
	re := regexp.MustCompile(`^before PII_SECRET_[0-9a-f]{12} after$`)
	for _, sh := range scrub.Shapes() {
		if len(examples[sh.Name]) == 0 {
			t.Errorf("shape %s has no fixture in scrubtest.Shapes", sh.Name)
		}
		for _, ex := range examples[sh.Name] {
			in := "before " + ex + " after"
			if out := tk.Tokenize(in); !re.MatchString(out) {
				t.Errorf("%s: Tokenize(%q) = %q, want the whole key a SECRET token", sh.Name, in, out)
			} else if back := tk.Detokenize(out); back != in {
				t.Errorf("%s: round trip %q -> %q", sh.Name, in, back)
			}
		}
	}
}

func TestTokenizeLeavesOrdinaryText(t *testing.T) {
	tk := mustTokenizer(t)
	for _, s := range []string{
		"timestamp 1732468123456 and id 4111111111111112", // a 13-digit number; a Luhn-invalid card
		"version 2024-01-15, 192.168.100.200, port 8080",
		"DE89 3704 0044 0532 0130 01", // bad IBAN checksum
		"x = 12345678; y = 3.14159",
		"PII_EMAIL_0123456789ab is an unknown token",
	} {
		if out := tk.Tokenize(s); out != s {
			t.Errorf("Tokenize(%q) = %q, want it unchanged", s, out)
		}
	}
}

func TestTokensAreStablePerTokenizer(t *testing.T) {
	a, b := mustTokenizer(t), mustTokenizer(t)
	s := "bob@example.com and bob@example.com"
	ta := a.Tokenize(s)
	if f := strings.Fields(ta); f[0] != f[2] {
		t.Fatalf("one value, two tokens: %q", ta)
	}
	if a.Tokenize("bob@example.com") != strings.Fields(ta)[0] {
		t.Fatal("token changed between calls")
	}
	if b.Tokenize(s) == ta {
		t.Fatal("two sessions share tokens")
	}
	if a.Len() != 1 {
		t.Fatalf("Len = %d", a.Len())
	}
}

func TestDetokenizeJSON(t *testing.T) {
	tk := mustTokenizer(t, `quote"[a-z]+"`)
	in := tk.Tokenize(`mail a@b.io and quote"zz"`)
	toks := regexp.MustCompile(`PII_[A-Z]+_[0-9a-f]{12}`).FindAllString(in, -1)
	if len(toks) != 2 {
		t.Fatalf("tokens: %q", in)
	}
	raw := json.RawMessage(`{"to": "` + toks[0] + `", "n": 12345678901234567890, "` + toks[0] + `": ["` + toks[1] + `", true]}`)
	out, err := tk.DetokenizeJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if got["to"] != "a@b.io" || got["a@b.io"].([]any)[0] != `quote"zz"` {
		t.Fatalf("DetokenizeJSON = %s", out)
	}
	if !strings.Contains(string(out), `"n":12345678901234567890`) {
		t.Errorf("number not kept exactly: %s", out)
	}
	if same, _ := tk.DetokenizeJSON(json.RawMessage(`{"a":1}`)); string(same) != `{"a":1}` {
		t.Errorf("token-free JSON changed: %s", same)
	}
}

func TestValidators(t *testing.T) {
	for _, s := range []string{"4111111111111111", "5555555555554444", "378282246310005", "6011111111111117"} {
		if !validCard(s) {
			t.Errorf("validCard(%s) = false", s)
		}
	}
	for _, s := range []string{"4111111111111112", "1234567812345670", "41111"} {
		if validCard(s) {
			t.Errorf("validCard(%s) = true", s)
		}
	}
	for _, s := range []string{"GB82WEST12345698765432", "DE89370400440532013000", "FR1420041010050500013M02606"} {
		if !validIBAN(s) {
			t.Errorf("validIBAN(%s) = false", s)
		}
	}
	if validIBAN("GB82WEST12345698765431") {
		t.Error("bad IBAN accepted")
	}
}
