package loop

import (
	"strings"
	"sync"
)

// holdWords is how many trailing words the chunker keeps back: a
// credential pattern such as "api_key = value" spans at most three words,
// so a secret is scrubbed as a whole, never split across two chunks.
const holdWords = 3

// markers start tool-call markup in text; once one appears, the rest of
// the response is not streamed (it is tool syntax, not an answer).
var markers = []string{"<tool_call", "<toolcall", "<invoke", "```json", "-----BEGIN"}

// chunker coalesces streamed text into pieces of about size bytes, cut at
// whitespace, scrubbed, and sends them. Providers may call write from any
// goroutine; calls are serialised.
type chunker struct {
	mu      sync.Mutex
	size    int
	scrub   func(string) string
	send    func(string)
	buf     strings.Builder
	stopped bool
}

func newChunker(size int, scrub func(string) string, send func(string)) *chunker {
	return &chunker{size: size, scrub: scrub, send: send}
}

func (c *chunker) write(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	c.buf.WriteString(s)
	if c.buf.Len() < c.size {
		return
	}
	text := c.buf.String()
	if hasMarker(text) {
		c.stopped = true
		return
	}
	cut := holdBack(text)
	if cut < c.size/2 {
		return
	}
	c.send(c.scrub(text[:cut]))
	c.buf.Reset()
	c.buf.WriteString(text[cut:])
}

// flush sends what is left when the response is complete.
func (c *chunker) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	text := c.buf.String()
	c.buf.Reset()
	if c.stopped || text == "" || hasMarker(text) {
		return
	}
	c.send(c.scrub(text))
}

// holdBack returns the index before the last holdWords words of text.
func holdBack(text string) int {
	words := 0
	inWord := false
	for i := len(text) - 1; i >= 0; i-- {
		space := isSpace(text[i])
		if space && inWord {
			words++
			if words == holdWords {
				return i + 1
			}
		}
		inWord = !space
	}
	return 0
}

// isSpace is ASCII whitespace only, so a cut never splits a UTF-8 sequence.
func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

func hasMarker(s string) bool {
	for _, m := range markers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}
