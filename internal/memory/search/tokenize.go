// Package search holds the pure building blocks of memory search: a
// Unicode-aware tokenizer, a BM25 inverted index, a flat float32 vector
// store with cosine similarity, a word-boundary chunker and the hybrid
// score merge. It has no I/O and no knowledge of agents or files; only
// internal/memory (and its tests and benchmarks) imports it.
package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokenRunes caps a token's length so that pathological input (a long
// base64 blob) does not bloat the term dictionary.
const maxTokenRunes = 64

// stopwords are dropped by Tokenize: a light English list of words that
// carry no meaning for memory search.
var stopwords = map[string]struct{}{
	"a": {}, "an": {}, "and": {}, "are": {}, "as": {}, "at": {}, "be": {},
	"but": {}, "by": {}, "for": {}, "from": {}, "has": {}, "have": {},
	"i": {}, "if": {}, "in": {}, "into": {}, "is": {}, "it": {}, "its": {},
	"of": {}, "on": {}, "or": {}, "so": {}, "than": {}, "that": {},
	"the": {}, "their": {}, "then": {}, "there": {}, "these": {}, "this": {},
	"to": {}, "was": {}, "were": {}, "will": {}, "with": {}, "what": {},
	"when": {}, "which": {}, "who": {}, "do": {}, "does": {}, "did": {},
	"my": {}, "me": {}, "we": {}, "our": {}, "you": {}, "your": {},
}

// IsStopword reports whether the lowercase token t is dropped by Tokenize.
func IsStopword(t string) bool {
	_, ok := stopwords[t]
	return ok
}

// Tokenize splits s into lowercase terms: maximal runs of Unicode letters
// and digits, stopwords removed, each at most 64 runes.
func Tokenize(s string) []string {
	return AppendTokens(nil, s)
}

// AppendTokens appends the terms of s (as Tokenize) to dst and returns it.
// Tokens that are already lowercase ASCII share memory with s.
func AppendTokens(dst []string, s string) []string {
	start := -1
	for i := 0; i <= len(s); {
		r, size := rune(0), 1
		if i < len(s) {
			r, size = rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
		}
		word := i < len(s) && isWordRune(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if t := normalizeToken(s[start:i]); t != "" && !IsStopword(t) {
				dst = append(dst, t)
			}
			start = -1
		}
		i += size
	}
	return dst
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r)
}

// normalizeToken lowercases w and cuts it to maxTokenRunes, allocating only
// when w is not already lowercase ASCII of an acceptable length.
func normalizeToken(w string) string {
	simple := len(w) <= maxTokenRunes
	for i := 0; simple && i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			simple = false
		}
	}
	if simple {
		return w
	}
	var b strings.Builder
	b.Grow(len(w))
	n := 0
	for _, r := range w {
		if n == maxTokenRunes {
			break
		}
		b.WriteRune(unicode.ToLower(r))
		n++
	}
	return b.String()
}
