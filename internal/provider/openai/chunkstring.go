package openai

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// name reads a member name: plain (see object), never escaped.
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
