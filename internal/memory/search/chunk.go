package search

import (
	"unicode"
	"unicode/utf8"
)

// Chunker defaults (the spec's chunk_size and chunk_overlap, in words).
const (
	DefaultChunkSize    = 400
	DefaultChunkOverlap = 80
)

// Chunk is one window of a text: at most size words, cut at word
// boundaries, with the original text between its first and last word kept
// verbatim. Lines are 1-based and inclusive.
type Chunk struct {
	Text      string
	StartLine int
	EndLine   int
}

type wordSpan struct {
	start, end int // byte offsets
	line       int
}

// ChunkText splits text into windows of at most size whitespace-separated
// words; consecutive windows share overlap words. A size below 1 means
// DefaultChunkSize; an overlap outside [0, size) is clamped. Text of at most
// size words is one chunk; blank text yields none.
func ChunkText(text string, size, overlap int) []Chunk {
	if size < 1 {
		size = DefaultChunkSize
	}
	overlap = max(0, min(overlap, size-1))
	words := splitWords(text)
	if len(words) == 0 {
		return nil
	}
	step := size - overlap
	chunks := make([]Chunk, 0, (len(words)+step-1)/step)
	for start := 0; ; start += step {
		end := min(start+size, len(words))
		first, last := words[start], words[end-1]
		chunks = append(chunks, Chunk{
			Text:      text[first.start:last.end],
			StartLine: first.line,
			EndLine:   last.line,
		})
		if end == len(words) {
			return chunks
		}
	}
}

// splitWords finds the maximal runs of non-space runes of text with the
// line each starts on.
func splitWords(text string) []wordSpan {
	var words []wordSpan
	line, start := 1, -1
	startLine := 1
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if unicode.IsSpace(r) {
			if start >= 0 {
				words = append(words, wordSpan{start: start, end: i, line: startLine})
				start = -1
			}
			if r == '\n' {
				line++
			}
		} else if start < 0 {
			start, startLine = i, line
		}
		i += size
	}
	if start >= 0 {
		words = append(words, wordSpan{start: start, end: len(text), line: startLine})
	}
	return words
}
