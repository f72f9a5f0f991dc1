package openai

import (
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeChunk decodes one streamed chunk into ch exactly as
// json.Unmarshal(data, ch) would. The shapes nearly every chunk has (an
// id, a model, text or reasoning deltas, a finish reason, usage, members
// we do not read) go through a small scanner that allocates only the
// strings it keeps; anything else (tool calls, a whole message, an error
// object, a member name that is not plain lower case, an escaped name, a
// number that is not a small integer, invalid UTF-8) falls back to
// encoding/json, from the same starting ch. ADR-023 has the benchmark.
func decodeChunk(data []byte, ch *chunkJSON) error {
	start := *ch
	if s := (chunkScanner{data: data}); s.chunk(ch) {
		return nil
	}
	*ch = start
	return json.Unmarshal(data, ch)
}

// rawNull is what encoding/json stores in a json.RawMessage for null.
var rawNull = json.RawMessage("null")

// chunkScanner reads the common chunk shapes; each method reports false
// for anything it does not handle, and the caller falls back.
type chunkScanner struct {
	data  []byte
	i     int
	depth int
}

// maxSkipDepth bounds the nesting of skipped values (deeper ones fall back).
const maxSkipDepth = 64

func (s *chunkScanner) chunk(ch *chunkJSON) bool {
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "id":
			return s.str(&ch.ID)
		case "model":
			return s.str(&ch.Model)
		case "choices":
			return s.choices(&ch.Choices)
		case "usage":
			return s.usage(&ch.Usage)
		case "error":
			if s.null() { // as encoding/json stores it; an error object falls back
				ch.Error = rawNull
				return true
			}
			return false
		}
		return s.skip()
	})
	if !ok {
		return false
	}
	s.space()
	return s.i == len(s.data)
}

func (s *chunkScanner) choices(out *[]choiceJSON) bool {
	if s.null() {
		*out = nil
		return true
	}
	v := *out
	n := 0
	ok := s.array(func() bool {
		if n >= cap(v) {
			v = append(v[:cap(v)], choiceJSON{})
		}
		if n >= len(v) {
			v = v[:n+1]
		}
		n++
		return s.choice(&v[n-1])
	})
	if !ok {
		return false
	}
	if n < len(v) {
		v = v[:n]
	}
	if n == 0 {
		v = make([]choiceJSON, 0)
	}
	*out = v
	return true
}

func (s *chunkScanner) choice(c *choiceJSON) bool {
	if s.null() {
		return true
	}
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "index":
			return s.int(&c.Index)
		case "delta":
			return s.delta(&c.Delta)
		case "message":
			if s.null() {
				c.Message = nil
				return true
			}
			return false
		case "finish_reason":
			return s.str(&c.FinishReason)
		}
		return s.skip()
	})
}

func (s *chunkScanner) delta(d *deltaJSON) bool {
	if s.null() {
		return true
	}
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "content":
			return s.str(&d.Content)
		case "reasoning":
			return s.str(&d.Reasoning)
		case "reasoning_content":
			return s.str(&d.ReasoningContent)
		case "tool_calls":
			if s.null() {
				d.ToolCalls = nil
				return true
			}
			return false
		}
		return s.skip()
	})
}

func (s *chunkScanner) usage(out **usageJSON) bool {
	if s.null() {
		*out = nil
		return true
	}
	u := *out
	if u == nil {
		u = new(usageJSON)
	}
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "prompt_tokens":
			return s.int(&u.PromptTokens)
		case "completion_tokens":
			return s.int(&u.CompletionTokens)
		case "total_tokens":
			return s.int(&u.TotalTokens)
		}
		return s.skip()
	})
	if ok {
		*out = u
	}
	return ok
}

// object reads {"name": value, ...}, calling member with each name
// (which must be plain: lower-case ASCII letters, digits and '_', so
// encoding/json's case-insensitive matching cannot differ) positioned at
// its value.
func (s *chunkScanner) object(member func(name []byte) bool) bool {
	s.space()
	if !s.byte('{') {
		return false
	}
	s.space()
	if s.byte('}') {
		return true
	}
	for {
		s.space()
		name, ok := s.name()
		if !ok {
			return false
		}
		s.space()
		if !s.byte(':') {
			return false
		}
		s.space()
		if !member(name) {
			return false
		}
		s.space()
		if s.byte('}') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// array reads [value, ...], calling elem positioned at each value.
func (s *chunkScanner) array(elem func() bool) bool {
	s.space()
	if !s.byte('[') {
		return false
	}
	s.space()
	if s.byte(']') {
		return true
	}
	for {
		s.space()
		if !elem() {
			return false
		}
		s.space()
		if s.byte(']') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

func (s *chunkScanner) name() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return s.data[start : s.i-1], true
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			s.i++
		default:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string into *out (null leaves it as it is); a value equal
// to the one there (a stream's id and model, chunk after chunk) is not
// copied again.
func (s *chunkScanner) str(out *string) bool {
	if s.null() {
		return true
	}
	b, ok := s.stringBytes()
	if ok && *out != string(b) {
		*out = string(b)
	}
	return ok
}

// stringBytes reads a JSON string: its bytes in data when it has no
// escapes, else a new decoded copy.
func (s *chunkScanner) stringBytes() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	ascii := true
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			raw := s.data[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(raw) {
				return nil, false // encoding/json would replace the bad bytes
			}
			return raw, true
		case c == '\\':
			return s.escapedString(start)
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		s.i++
	}
	return nil, false
}

// escapedString goes on reading a string from its first backslash,
// decoding escapes as encoding/json does (a lone surrogate is U+FFFD).
func (s *chunkScanner) escapedString(start int) ([]byte, bool) {
	buf := make([]byte, 0, s.i-start+16)
	buf = append(buf, s.data[start:s.i]...)
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			if !utf8.Valid(buf) {
				return nil, false
			}
			return buf, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			buf = append(buf, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.data) {
			return nil, false
		}
		e := s.data[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil, false
			}
			if utf16.IsSurrogate(r) {
				// A valid pair is one rune; anything else is U+FFFD and the
				// next escape is read on its own.
				pair := unicode.ReplacementChar
				if save := s.i; s.literal(`\u`) {
					if r2, ok := s.hex4(); ok {
						pair = utf16.DecodeRune(r, r2)
					}
					if pair == unicode.ReplacementChar {
						s.i = save
					}
				}
				r = pair
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

func (s *chunkScanner) hex4() (rune, bool) {
	if s.i+4 > len(s.data) {
		return 0, false
	}
	var r rune
	for _, c := range s.data[s.i : s.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.i += 4
	return r, true
}

// int reads an integer that fits an int (null leaves *out as it is).
func (s *chunkScanner) int(out *int) bool {
	if s.null() {
		return true
	}
	start := s.i
	if !s.number() {
		return false
	}
	n, err := strconv.Atoi(string(s.data[start:s.i]))
	if err != nil {
		return false // a fraction, an exponent or out of range
	}
	*out = n
	return true
}

// number checks one JSON number.
func (s *chunkScanner) number() bool {
	s.byte('-')
	switch {
	case s.byte('0'):
	case s.digits():
	default:
		return false
	}
	if s.byte('.') && !s.digits() {
		return false
	}
	if s.byte('e') || s.byte('E') {
		if !s.byte('+') {
			s.byte('-')
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

func (s *chunkScanner) digits() bool {
	start := s.i
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// skip checks and passes over one value of any kind.
func (s *chunkScanner) skip() bool {
	if s.i >= len(s.data) {
		return false
	}
	switch c := s.data[s.i]; {
	case c == '"':
		_, ok := s.stringBytes()
		return ok
	case c == '{', c == '[':
		if s.depth++; s.depth > maxSkipDepth {
			return false
		}
		defer func() { s.depth-- }()
		if c == '[' {
			return s.array(s.skip)
		}
		return s.object(func([]byte) bool { return s.skip() })
	case c == '-', c >= '0' && c <= '9':
		return s.number()
	}
	return s.literal("true") || s.literal("false") || s.null()
}

func (s *chunkScanner) null() bool { return s.literal("null") }

func (s *chunkScanner) literal(word string) bool {
	if len(s.data)-s.i >= len(word) && string(s.data[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

func (s *chunkScanner) byte(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *chunkScanner) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}
