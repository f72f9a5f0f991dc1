package scrub

import (
	"strings"
)

// keywords name values that are secrets in "key: value" and "key=value"
// text (the spec's api[_-]?key, token, password and secret, plus a few
// close relatives). A key matches when it ends with one of them, ignoring
// case, as the spec's unanchored patterns do: "access_token=..." counts,
// "tokens: 5" does not.
var keywords = []string{
	"api_key", "api-key", "apikey", "token", "password", "passwd",
	"passphrase", "secret", "secret_key", "access_key", "private_key",
	"authorization",
}

// schemes are HTTP authentication schemes: in "Authorization: Basic xyz"
// the scheme stays and the credential after it goes.
var schemes = []string{"basic", "bearer", "token", "digest", "bot"}

// findAssignment finds the value of the next keyword assignment.
func findAssignment(s string, from int) (int, int, bool) {
	start, end, _, ok := nextAssignment(s, from)
	return start, end, ok
}

// nextAssignment finds the first keyword assignment at or after from and
// returns the span of its value and where to continue.
func nextAssignment(s string, from int) (start, end, next int, ok bool) {
	sc := newSepScanner(s)
	for i := from; i < len(s); {
		sep := sc.next(i)
		if sep < 0 {
			return 0, 0, len(s), false
		}
		i = sep + 1
		if !keyBefore(s, sep) {
			continue
		}
		v := sep + 1
		if v < len(s) && s[v] == '=' {
			if s[sep] == '=' { // "==" compares, it does not assign
				i = v + 1
				continue
			}
			v++ // ":="
		}
		v = skipSpace(s, v)
		if v >= len(s) {
			return 0, 0, len(s), false
		}
		start, end = valueSpan(s, v)
		if e := s[end-1]; end > start && (e == ':' || e == '=') && keyBefore(s, end-1) {
			i = start // the value is the key of the next assignment: "token= password: x"
			continue
		}
		if end > start {
			return start, end, end, true
		}
		i = max(i, end)
	}
	return 0, 0, len(s), false
}

// sepScanner yields the ':' and '=' of s in order, remembering where the
// next of each is so that long text is scanned once.
type sepScanner struct {
	s         string
	colon, eq int // next index at or after the last query; -1 none; -2 unknown
}

func newSepScanner(s string) sepScanner { return sepScanner{s: s, colon: -2, eq: -2} }

// next returns the index of the first ':' or '=' at or after from, or -1.
func (sc *sepScanner) next(from int) int {
	sc.colon = sc.refresh(sc.colon, from, ':')
	sc.eq = sc.refresh(sc.eq, from, '=')
	switch {
	case sc.colon < 0:
		return sc.eq
	case sc.eq < 0:
		return sc.colon
	}
	return min(sc.colon, sc.eq)
}

func (sc *sepScanner) refresh(pos, from int, c byte) int {
	if pos == -1 || pos >= from {
		return pos
	}
	if from >= len(sc.s) {
		return -1
	}
	if i := strings.IndexByte(sc.s[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// keyBefore reports whether a keyword, optionally followed by white space,
// ends right before s[sep], or a quoted key ending with one does
// ("passwd": or 'X-Api-Key':). A quote after the keyword must close a
// quote opened before its key: in `grep passwd": log` the quote is part
// of the text and "log" no value.
func keyBefore(s string, sep int) bool {
	k := sep
	for k > 0 && isSpace(s[k-1]) {
		k--
	}
	var quote byte
	if k > 0 && (s[k-1] == '"' || s[k-1] == '\'') {
		quote = s[k-1]
		k--
	}
	if k == 0 || strings.IndexByte("YDNETydnet", s[k-1]) < 0 { // the last letters of the keywords
		return false
	}
	for _, kw := range keywords {
		if k >= len(kw) && strings.EqualFold(s[k-len(kw):k], kw) {
			if quote != 0 {
				return opensKey(s, k-len(kw), quote)
			}
			return !inPath(s, k-len(kw))
		}
	}
	return false
}

// inPath reports whether the key around the keyword starting at s[kw] is
// the last part of a path ("/etc/passwd: no such file"): a file name, not
// a key.
func inPath(s string, kw int) bool {
	i := kw
	for i > 0 && (isWordByte(s[i-1]) || s[i-1] == '-' || s[i-1] == '.') {
		i--
	}
	return i > 0 && s[i-1] == '/'
}

// opensKey reports whether the key around the keyword starting at s[kw]
// (its word, '-' and '.' bytes) starts right after the quote q.
func opensKey(s string, kw int, q byte) bool {
	i := kw
	for i > 0 && (isWordByte(s[i-1]) || s[i-1] == '-' || s[i-1] == '.') {
		i--
	}
	return i > 0 && s[i-1] == q
}

// valueSpan returns the secret part of the value starting at s[v]: the
// inside of a quoted string, the credential after an auth scheme, or the
// run of non-space characters.
func valueSpan(s string, v int) (start, end int) {
	if q := s[v]; q == '"' || q == '\'' || q == '`' {
		if c := closingQuote(s, v+1, q); c >= 0 {
			return v + 1, c
		}
		return v, nonSpaceEnd(s, v)
	}
	end = unquotedEnd(s, v)
	if isScheme(s[v:end]) {
		w := end
		for w < len(s) && (s[w] == ' ' || s[w] == '\t') {
			w++
		}
		if w > end && w < len(s) && !isSpace(s[w]) {
			return w, unquotedEnd(s, w)
		}
	}
	return v, end
}

// closingQuote returns the index of the quote q that closes a string
// starting at s[from], skipping backslash escapes, or -1 when the line
// ends first.
func closingQuote(s string, from int, q byte) int {
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\n':
			return -1
		case q:
			return i
		}
	}
	return -1
}

func isScheme(w string) bool {
	for _, sc := range schemes {
		if strings.EqualFold(w, sc) {
			return true
		}
	}
	return false
}

// unquotedEnd returns the end of an unquoted value starting at s[i]: the run
// of non-space characters, except that a quote followed by a non-word
// character ends it (the value closes a quoted argument, as in
// -H 'X-Api-Key: abc').
func unquotedEnd(s string, i int) int {
	for ; i < len(s) && !isSpace(s[i]); i++ {
		if q := s[i]; (q == '"' || q == '\'' || q == '`') && (i+1 == len(s) || !isWordByte(s[i+1])) {
			return i
		}
	}
	return i
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func nonSpaceEnd(s string, i int) int {
	for i < len(s) && !isSpace(s[i]) {
		i++
	}
	return i
}

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// isSpace is RE2's \s.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
