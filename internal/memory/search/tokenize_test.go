package search

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"lowercase and punctuation", "Hello, World! It's 2026.", []string{"hello", "world", "s", "2026"}},
		{"stopwords dropped", "the cat and the hat", []string{"cat", "hat"}},
		{"unicode letters", "Café ÜBER straße naïve", []string{"café", "über", "straße", "naïve"}},
		{"cjk and cyrillic", "東京 Москва", []string{"東京", "москва"}},
		{"snake and kebab split", "user_id dark-mode", []string{"user", "id", "dark", "mode"}},
		{"markdown", "## Notes\n- **deploy** via `make`", []string{"notes", "deploy", "via", "make"}},
		{"invalid utf8 is a separator", "ab\xffcd", []string{"ab", "cd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Tokenize(tt.in)); diff != "" {
				t.Errorf("Tokenize(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestTokenizeCapsLength(t *testing.T) {
	got := Tokenize(strings.Repeat("x", 500))
	if len(got) != 1 || utf8.RuneCountInString(got[0]) != maxTokenRunes {
		t.Fatalf("got %d tokens, first of %d runes", len(got), utf8.RuneCountInString(got[0]))
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "Hello World", "Café über", "a\xffb", "東京 2026-01-02", strings.Repeat("Ab", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokenize(s) {
			if tok == "" {
				t.Fatal("empty token")
			}
			if IsStopword(tok) {
				t.Fatalf("stopword %q kept", tok)
			}
			if utf8.RuneCountInString(tok) > maxTokenRunes {
				t.Fatalf("token %q too long", tok)
			}
			if !utf8.ValidString(tok) {
				t.Fatalf("token %q is not valid UTF-8", tok)
			}
			if again := Tokenize(tok); len(again) != 1 || again[0] != tok {
				t.Fatalf("token %q does not re-tokenize to itself: %q", tok, again)
			}
		}
	})
}
