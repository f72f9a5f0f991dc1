package telegram

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxMessageLen is Telegram's limit on one message, in UTF-16 code units.
const MaxMessageLen = 4096

type tokKind uint8

const (
	tokText   tokKind = iota // one rune of text
	tokOpen                  // <tag ...>
	tokClose                 // </tag>
	tokEntity                // &...;
)

type token struct {
	s     string
	kind  tokKind
	name  string // tag name, for tokOpen and tokClose
	units int    // UTF-16 length of s
}

// tokenize cuts Telegram HTML into tags, entities and single runes.
func tokenize(h string) []token {
	toks := make([]token, 0, len(h))
	for i := 0; i < len(h); {
		switch h[i] {
		case '<':
			if end := strings.IndexByte(h[i:], '>'); end > 0 {
				s := h[i : i+end+1]
				t := token{s: s, kind: tokOpen, units: utf16Len(s)}
				name := strings.TrimPrefix(s[1:len(s)-1], "/")
				name, _, _ = strings.Cut(name, " ")
				t.name = name
				if s[1] == '/' {
					t.kind = tokClose
				}
				toks = append(toks, t)
				i += end + 1
				continue
			}
		case '&':
			if end := strings.IndexByte(h[i:], ';'); end > 0 && end < 12 {
				toks = append(toks, token{s: h[i : i+end+1], kind: tokEntity, units: end + 1})
				i += end + 1
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(h[i:])
		toks = append(toks, token{s: h[i : i+size], kind: tokText, units: utf16.RuneLen(r)})
		i += size
	}
	return toks
}

// Split cuts a Telegram HTML message into parts of at most limit UTF-16
// units each (HTML source length, which bounds the length Telegram
// counts). It cuts at a paragraph break if one lies in the second half of
// the part, else a line break, else a space, else anywhere between two
// tokens — never inside a tag or an entity. Tags open at a cut are closed
// at the end of the part and reopened at the start of the next.
func Split(h string, limit int) []string {
	if limit <= 0 {
		limit = MaxMessageLen
	}
	if utf16Len(h) <= limit {
		return []string{h}
	}
	toks := tokenize(h)
	var parts []string
	var open []token // tags open at the start of the current part
	for start := 0; start < len(toks); {
		end, next := cutPoint(toks, start, open, limit)
		part, stack := renderPart(toks[start:end], open)
		if hasText(part) {
			parts = append(parts, part)
		}
		open, start = stack, next
	}
	return parts
}

// cutPoint returns where the part starting at start ends (exclusive) and
// where the next one begins (skipping the whitespace cut at).
func cutPoint(toks []token, start int, open []token, limit int) (end, next int) {
	stack := append([]token(nil), open...)
	used := 0
	for _, t := range open {
		used += t.units
	}
	var para, line, word int
	for i := start; i < len(toks); i++ {
		t := toks[i]
		stack = step(stack, t)
		if used+t.units+closeLen(stack) > limit && i > start {
			return chooseCut(start, i, para, line, word)
		}
		used += t.units
		if t.kind == tokText {
			switch {
			case t.s == "\n" && i > start && toks[i-1].s == "\n":
				para = i + 1
			case t.s == "\n":
				line = i + 1
			case t.s == " ":
				word = i + 1
			}
		}
	}
	return len(toks), len(toks)
}

func chooseCut(start, hard, para, line, word int) (end, next int) {
	half := start + (hard-start)/2
	for _, c := range []int{para, line, word} {
		if c > half {
			return c, c
		}
	}
	for _, c := range []int{para, line, word} {
		if c > start {
			return c, c
		}
	}
	return hard, hard
}

// step applies t to the stack of open tags.
func step(stack []token, t token) []token {
	switch t.kind {
	case tokOpen:
		return append(stack, t)
	case tokClose:
		for j := len(stack) - 1; j >= 0; j-- {
			if stack[j].name == t.name {
				return append(stack[:j:j], stack[j+1:]...)
			}
		}
	}
	return stack
}

func closeLen(stack []token) int {
	n := 0
	for _, t := range stack {
		n += len(t.name) + 3
	}
	return n
}

// renderPart writes the part: reopened tags, the tokens, closing tags; it
// returns the tags still open after toks.
func renderPart(toks []token, open []token) (string, []token) {
	var b strings.Builder
	stack := append([]token(nil), open...)
	for _, t := range open {
		b.WriteString(t.s)
	}
	for _, t := range toks {
		b.WriteString(t.s)
		stack = step(stack, t)
	}
	s := strings.TrimRight(b.String(), " \n")
	var closing strings.Builder
	for j := len(stack) - 1; j >= 0; j-- {
		closing.WriteString("</" + stack[j].name + ">")
	}
	return s + closing.String(), stack
}

// hasText reports whether h shows anything besides whitespace.
func hasText(h string) bool {
	inTag := false
	for _, r := range h {
		switch {
		case r == '<':
			inTag = true
		case r == '>':
			inTag = false
		case !inTag && r != ' ' && r != '\n' && r != '\t':
			return true
		}
	}
	return false
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
