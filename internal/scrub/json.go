package scrub

import (
	"encoding/json"
	"strings"
)

// redactedJSON is Redacted as a JSON string.
const redactedJSON = `"` + Redacted + `"`

// JSON scrubs a JSON document: every string (keys included) goes through
// String, and the value of a key that names a secret ("api_key", "token",
// "password", "secret", "authorization", ...) becomes "[REDACTED]" unless
// it is true, false or null. Valid JSON stays valid JSON with its layout
// and key order kept; it is returned unchanged, without allocating a new
// document, when nothing is secret. Text that is not valid JSON is
// scrubbed as plain text.
func JSON(raw json.RawMessage) json.RawMessage { return scrubJSON(raw, String) }

// JSON is the package-level JSON with this Scrubber's literals redacted too.
func (s *Scrubber) JSON(raw json.RawMessage) json.RawMessage { return scrubJSON(raw, s.String) }

func scrubJSON(raw json.RawMessage, str func(string) string) json.RawMessage {
	text := string(raw)
	if !json.Valid(raw) {
		if out := str(text); out != text {
			return json.RawMessage(out)
		}
		return raw
	}
	w := jsonRewriter{src: text, str: str}
	if !w.run() {
		return raw
	}
	return w.out
}

// jsonRewriter copies a valid JSON document, replacing string literals and
// the values of secret keys. out stays nil until the first change.
type jsonRewriter struct {
	src  string
	str  func(string) string
	out  []byte
	last int // src[:last] has been copied to out
}

// run rewrites the document and reports whether anything changed.
func (w *jsonRewriter) run() bool {
	for i := 0; i < len(w.src); {
		if w.src[i] != '"' {
			i++
			continue
		}
		start, end := i, stringEnd(w.src, i)
		colon := nextNonSpace(w.src, end)
		w.scrubString(start, end)
		if colon >= len(w.src) || w.src[colon] != ':' { // a value, not a key
			i = end
			continue
		}
		i = nextNonSpace(w.src, colon+1)
		if i < len(w.src) && secretKey(w.src[start:end]) {
			i = w.redactValue(i)
		}
	}
	if w.out == nil {
		return false
	}
	w.out = append(w.out, w.src[w.last:]...)
	return true
}

// redactValue replaces the value of a secret key starting at src[v] and
// returns the index just past it. true, false and null hold no secret.
func (w *jsonRewriter) redactValue(v int) int {
	switch w.src[v] {
	case 't', 'f', 'n':
		return v
	}
	ve := valueEnd(w.src, v)
	if w.src[v:ve] != redactedJSON {
		w.replace(v, ve, redactedJSON)
	}
	return ve
}

// replace substitutes src[start:end] with repl.
func (w *jsonRewriter) replace(start, end int, repl string) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.src)+16)
	}
	w.out = append(w.out, w.src[w.last:start]...)
	w.out = append(w.out, repl...)
	w.last = end
}

// scrubString scrubs the string literal src[start:end] (quotes included).
func (w *jsonRewriter) scrubString(start, end int) {
	lit := w.src[start:end]
	s := lit[1 : len(lit)-1]
	if strings.IndexByte(lit, '\\') >= 0 {
		s = decodeString(lit)
	}
	out := w.str(s)
	if out == s {
		return
	}
	enc, err := json.Marshal(out)
	if err != nil { // a Go string always encodes; keep the document valid regardless
		enc = []byte(redactedJSON)
	}
	w.replace(start, end, string(enc))
}

// secretKey reports whether a JSON key literal (quotes included) names a
// secret: its text, ignoring case, '-' and '_', ends with a keyword.
func secretKey(lit string) bool {
	k := lit[1 : len(lit)-1]
	if strings.IndexByte(lit, '\\') >= 0 {
		k = decodeString(lit)
	}
	for _, kw := range jsonKeywords {
		if hasNormalizedSuffix(k, kw) {
			return true
		}
	}
	return false
}

var jsonKeywords = []string{
	"apikey", "token", "password", "passwd", "passphrase", "secret", "secretkey",
	"accesskey", "privatekey", "authorization", "credential", "credentials",
}

// hasNormalizedSuffix reports whether k, lower-cased and without '-' and
// '_', ends with kw (lower case).
func hasNormalizedSuffix(k, kw string) bool {
	i, j := len(k)-1, len(kw)-1
	for j >= 0 {
		if i < 0 {
			return false
		}
		c := k[i]
		i--
		if c == '-' || c == '_' {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != kw[j] {
			return false
		}
		j--
	}
	return true
}

func decodeString(lit string) string {
	var s string
	if err := json.Unmarshal([]byte(lit), &s); err != nil {
		return ""
	}
	return s
}

// stringEnd returns the index just past the string literal starting at
// src[i] (a '"').
func stringEnd(src string, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// valueEnd returns the index just past the JSON value starting at src[i].
func valueEnd(src string, i int) int {
	switch src[i] {
	case '"':
		return stringEnd(src, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(src); j++ {
			switch src[j] {
			case '"':
				j = stringEnd(src, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(src)
	}
	j := i
	for j < len(src) && strings.IndexByte(",}] \t\r\n", src[j]) < 0 {
		j++
	}
	return j
}

func nextNonSpace(src string, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n') {
		i++
	}
	return i
}
