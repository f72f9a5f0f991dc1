// Package scrub removes credentials from text and JSON before it is stored,
// logged, emitted or sent to a model. It holds the one table of credential
// shapes (Shapes: today's API key families, JWTs, PEM private keys,
// Telegram bot tokens), the rules that know a secret by its context (the
// spec's key=value rules, Bearer and Basic credentials, URL passwords) and
// a Scrubber that also removes exact secret values registered at runtime.
// It imports only the standard library; any package may import it.
package scrub

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Redacted replaces every secret.
const Redacted = "[REDACTED]"

// MinLiteralLen is the shortest value Scrubber.Add accepts: shorter ones
// would redact ordinary words.
const MinLiteralLen = 8

// maxPasses bounds the passes that String makes until the text is stable.
// One redaction can expose another match (a key that now follows "]"
// instead of a letter); repeating until nothing changes makes String
// idempotent.
const maxPasses = 8

// String returns s with every secret that a pattern recognises replaced by
// [REDACTED]. When nothing can match it returns s itself without
// allocating.
func String(s string) string { return redactPatterns(s) }

// Bytes is String for a byte slice. It returns b itself when nothing is
// secret, and a new slice otherwise.
func Bytes(b []byte) []byte {
	out := String(string(b))
	if out == string(b) {
		return b
	}
	return []byte(out)
}

// Scrubber redacts the patterns of String and, in addition, exact secret
// values registered with Add (resolved config secrets, say, whatever their
// shape). The zero value is ready to use; a Scrubber is safe for concurrent
// use and must not be copied after first use.
type Scrubber struct {
	mu   sync.Mutex               // serialises Add
	lits atomic.Pointer[[]string] // immutable snapshot, longest first
}

// New returns a Scrubber that also redacts the given literal values.
func New(literals ...string) *Scrubber {
	s := &Scrubber{}
	for _, l := range literals {
		s.Add(l)
	}
	return s
}

// Add registers an exact secret value. Surrounding white space is ignored.
// It reports whether the value was registered: values shorter than
// MinLiteralLen are refused (they would redact ordinary words), and
// duplicates are registered once.
func (s *Scrubber) Add(literal string) bool {
	literal = strings.TrimSpace(literal)
	if len(literal) < MinLiteralLen {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var cur []string
	if p := s.lits.Load(); p != nil {
		cur = *p
	}
	for _, l := range cur {
		if l == literal {
			return true
		}
	}
	next := make([]string, 0, len(cur)+1)
	next = append(next, cur...)
	next = append(next, literal)
	// Longest first, so that a secret containing another is removed whole.
	sort.SliceStable(next, func(i, j int) bool { return len(next[i]) > len(next[j]) })
	s.lits.Store(&next)
	return true
}

// String returns s with registered values and pattern matches redacted.
func (s *Scrubber) String(str string) string {
	p := s.lits.Load()
	if p == nil || len(*p) == 0 {
		return redactPatterns(str)
	}
	lits := *p
	out := str
	for range maxPasses {
		next := redactPatterns(replaceLiterals(out, lits))
		if next == out {
			break
		}
		out = next
	}
	return out
}

// Bytes is String for a byte slice; it returns b itself when nothing is
// secret.
func (s *Scrubber) Bytes(b []byte) []byte {
	out := s.String(string(b))
	if out == string(b) {
		return b
	}
	return []byte(out)
}

func replaceLiterals(s string, lits []string) string {
	for _, l := range lits {
		if strings.Contains(s, l) {
			s = strings.ReplaceAll(s, l, Redacted)
		}
	}
	return s
}

// redactPatterns applies every rule until the text is stable.
func redactPatterns(s string) string {
	out := s
	for range maxPasses {
		next := onePass(out)
		if next == out {
			break
		}
		out = next
	}
	return out
}

// onePass applies each rule in order.
func onePass(s string) string {
	for _, r := range rules() {
		s = redactSpans(s, r.find)
	}
	return s
}

// redactSpans replaces every span that find reports with Redacted. It
// returns s itself when there is none.
func redactSpans(s string, find func(string, int) (int, int, bool)) string {
	var b strings.Builder
	last := 0
	for from := 0; from < len(s); {
		start, end, ok := find(s, from)
		if !ok {
			break
		}
		from = max(end, start+1)
		if s[start:end] == Redacted {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString(Redacted)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
