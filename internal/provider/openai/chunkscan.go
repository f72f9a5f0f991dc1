package openai

import "strconv"

// maxSkipDepth bounds the nesting of skipped values (deeper ones fall back).
const maxSkipDepth = 64

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
