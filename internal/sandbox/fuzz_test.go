package sandbox

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzTokenizeRoundTrip: whatever the text, restoring the tokens of a
// fresh tokenizer gives the text back (also through JSON), and
// tokenizing is stable. Seeds: testdata/fuzz/FuzzTokenizeRoundTrip.
func FuzzTokenizeRoundTrip(f *testing.F) {
	for _, s := range []string{
		"", "plain text", "a@b.co", "call +1 (555) 123-4567", "4111 1111 1111 1111",
		"DE89 3704 0044 0532 0130 00", "PII_EMAIL_a@b.co", "a@b.co@c.com", "sk-ant-abcdefghijklmnopqrstuvwxyz",
	} {
		f.Add(s)
	}
	d, err := newDetector(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tk := newTokenizer(d)
		out := tk.Tokenize(s)
		if back := tk.Detokenize(out); back != s {
			t.Fatalf("round trip:\n in  %q\n tok %q\n out %q", s, out, back)
		}
		if again := tk.Tokenize(s); again != out {
			t.Fatalf("unstable: %q then %q", out, again)
		}
		if !utf8.ValidString(s) {
			return // JSON cannot carry it unchanged
		}
		raw, _ := json.Marshal(map[string]string{"v": out})
		restored, err := tk.DetokenizeJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		if err := json.Unmarshal(restored, &got); err != nil || got["v"] != s {
			t.Fatalf("JSON round trip: %q -> %s (%v)", s, restored, err)
		}
	})
}
