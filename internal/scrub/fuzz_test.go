package scrub

import (
	"encoding/json"
	"strings"
	"testing"
)

func FuzzString(f *testing.F) {
	for i := range plants {
		f.Add("", uint8(i), "")
	}
	f.Add("token=", uint8(0), "tail")
	f.Add("https://u:", uint8(3), "@host")
	f.Add(`{"password": "`, uint8(5), `"}`)
	f.Add("Authorization: Bearer", uint8(7), "'")
	f.Add("-----BEGIN PRIVATE KEY-----", uint8(15), "")
	f.Add("risk-", uint8(1), "sk-")
	f.Fuzz(func(t *testing.T, prefix string, idx uint8, suffix string) {
		p := plants[int(idx)%len(plants)]
		if strings.Contains(prefix, p.secret) || strings.Contains(suffix, p.secret) {
			t.Skip("the fuzzer wrote the secret itself")
		}
		in := prefix + " " + p.text + " " + suffix
		out := String(in)
		if strings.Contains(out, p.secret) {
			t.Fatalf("secret survived:\nin:  %q\nout: %q", in, out)
		}
		if again := String(out); again != out {
			t.Fatalf("not idempotent:\nonce:  %q\ntwice: %q", out, again)
		}
		if plain := String(prefix); String(plain) != plain {
			t.Fatalf("not idempotent on %q", prefix)
		}
	})
}

func FuzzJSON(f *testing.F) {
	seeds := []string{
		`{"api_key":"abc","nested":{"token":123,"ok":true},"list":["password=x","plain"]}`,
		`["Bearer abcdefghij1234567890", null, 1.5e3]`,
		`{"Authorization":{"scheme":"Basic"},"secret":null,"k\u0065y":"v"}`,
		`"ghp_\u0041bc"`, `{"a":"\u003c\u003e&"}`, `not json token=abc`, `{}`, `[]`, `""`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out := JSON(json.RawMessage(data))
		if json.Valid(data) && !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out:\nin:  %q\nout: %q", data, out)
		}
		if again := JSON(out); string(again) != string(out) {
			t.Fatalf("not idempotent:\nonce:  %q\ntwice: %q", out, again)
		}
	})
}
