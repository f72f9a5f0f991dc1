package sandbox

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// maxTokens bounds one tokenizer's memory; past it, new values are
// replaced by PII_<KIND>_REDACTED, which cannot be restored.
const maxTokens = 1 << 16

// tokenHexLen is the length of a token's hex part (48 bits of HMAC).
const tokenHexLen = 12

// Tokenizer replaces personal data (emails, phone numbers, card numbers
// passing Luhn, IBANs passing mod-97, the scrubber's credential shapes,
// and the extra patterns of sandbox.pii.patterns) with tokens such as
// PII_EMAIL_3f9a1c2b4d5e, and restores them. A token is stable for the
// tokenizer's life (one per session): the same value always gets the
// same token, derived with HMAC-SHA256 under a random key, so tokens say
// nothing about the value and differ between sessions. Tokens use only
// [A-Z0-9a-f_]: they survive JSON, Python and shell quoting unchanged.
// Safe for concurrent use.
type Tokenizer struct {
	d       *detector
	tokenRE *regexp.Regexp
	key     [32]byte

	mu      sync.Mutex
	toTok   map[string]string // kind + "\x00" + value -> token
	fromTok map[string]string // token -> value
}

// NewTokenizer returns a tokenizer with the built-in detectors plus
// extra RE2 patterns (kind CUSTOM).
func NewTokenizer(extra []string) (*Tokenizer, error) {
	d, err := newDetector(extra)
	if err != nil {
		return nil, err
	}
	return newTokenizer(d), nil
}

func newTokenizer(d *detector) *Tokenizer {
	t := &Tokenizer{
		d:       d,
		tokenRE: regexp.MustCompile(`PII_(?:EMAIL|PHONE|CARD|IBAN|SECRET|CUSTOM)_[0-9a-f]{12}`),
		toTok:   map[string]string{},
		fromTok: map[string]string{},
	}
	if _, err := rand.Read(t.key[:]); err != nil {
		panic(fmt.Sprintf("sandbox: no randomness for the PII key: %v", err)) // crypto/rand never fails on Linux
	}
	return t
}

// Tokenize returns s with every finding replaced by its token.
func (t *Tokenizer) Tokenize(s string) string {
	spans := t.d.find(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(t.tokenLocked(sp.kind, s[sp.start:sp.end]))
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

func (t *Tokenizer) tokenLocked(kind, value string) string {
	k := kind + "\x00" + value
	if tok, ok := t.toTok[k]; ok {
		return tok
	}
	if len(t.toTok) >= maxTokens {
		return "PII_" + kind + "_REDACTED"
	}
	for n := 0; ; n++ {
		mac := hmac.New(sha256.New, t.key[:])
		fmt.Fprintf(mac, "%d\x00%s", n, k)
		tok := "PII_" + kind + "_" + hex.EncodeToString(mac.Sum(nil))[:tokenHexLen]
		if _, taken := t.fromTok[tok]; taken {
			continue // a 48-bit collision: derive the next one
		}
		t.toTok[k] = tok
		t.fromTok[tok] = value
		return tok
	}
}

// Detokenize returns s with every token this tokenizer issued replaced
// by its value; other text, including unknown tokens, is unchanged.
func (t *Tokenizer) Detokenize(s string) string {
	if !strings.Contains(s, "PII_") {
		return s
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tokenRE.ReplaceAllStringFunc(s, func(tok string) string {
		if v, ok := t.fromTok[tok]; ok {
			return v
		}
		return tok
	})
}

// DetokenizeJSON restores tokens inside the strings (keys and values) of
// a JSON document, re-encoding it so that restored values are escaped.
func (t *Tokenizer) DetokenizeJSON(raw json.RawMessage) (json.RawMessage, error) {
	if !bytes.Contains(raw, []byte("PII_")) {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode arguments: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t.walk(v)); err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func (t *Tokenizer) walk(v any) any {
	switch x := v.(type) {
	case string:
		return t.Detokenize(x)
	case []any:
		for i := range x {
			x[i] = t.walk(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[t.Detokenize(k)] = t.walk(e)
		}
		return out
	}
	return v
}

// Len is how many distinct values the tokenizer holds.
func (t *Tokenizer) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.fromTok)
}
