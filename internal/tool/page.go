package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// OutputTool is the built-in tool that reads a kept output by pages
// (tool/builtin's tool_output); View's note names it.
const OutputTool = "tool_output"

// Bounds of the page size PageBytesFor chooses from a context window.
const (
	MinPageBytes = 4 << 10
	MaxPageBytes = 32 << 10
)

// Paging is the page size of tool results (tools.page_bytes and
// tools.page_bytes_per_tool): a result longer than it reaches the model
// as a View, and the whole of it is kept with the session.
type Paging struct {
	// Bytes applies to every tool (0: PageBytesFor the model's window).
	Bytes int
	// PerTool, by tool name, wins over Bytes.
	PerTool map[string]int
}

// For is the page size of a call of the tool name by a model whose
// context window is window tokens.
func (p Paging) For(name string, window int) int {
	if n := p.PerTool[name]; n > 0 {
		return n
	}
	if p.Bytes > 0 {
		return p.Bytes
	}
	return PageBytesFor(window)
}

// PageBytesFor is the page size for a context window of window tokens:
// 3 % of it at 4 bytes a token, within [MinPageBytes, MaxPageBytes].
func PageBytesFor(window int) int {
	return min(max(window*4*3/100, MinPageBytes), MaxPageBytes)
}

// View is what the model gets of an output s longer than limit bytes: its
// head (about 60 % of limit, ending with a whole line when one ends in the
// second half of that) and its tail (the rest of limit, starting with a
// whole line likewise), cut at UTF-8 boundaries, with a line between them
// saying which bytes were left out and, when handle is not "", how to read
// them with OutputTool. s itself, when it fits.
func View(s string, limit int, handle string) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	head := headEnd(s, limit*6/10)
	tail := tailStart(s, len(s)-(limit-head))
	var b strings.Builder
	b.Grow(limit + 256)
	b.WriteString(s[:head])
	if head > 0 && s[head-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(leftOut(s, head, tail, handle))
	b.WriteByte('\n')
	b.WriteString(s[tail:])
	return b.String()
}

// leftOut is View's line about s[head:tail].
func leftOut(s string, head, tail int, handle string) string {
	what := fmt.Sprintf("%d bytes", tail-head)
	if n := strings.Count(s[head:tail], "\n"); n > 0 {
		what += fmt.Sprintf(" (%d lines)", n)
	}
	if handle == "" {
		return fmt.Sprintf("[... %s left out: bytes %d–%d of %d; the whole output was not kept ...]", what, head, tail, len(s))
	}
	return fmt.Sprintf(`[... %s left out: bytes %d–%d of %d. The whole output is kept: call %s with {"id":"%s","offset":%d} to read on ...]`,
		what, head, tail, len(s), OutputTool, handle, head)
}

// headEnd is where a head of at most n bytes of s ends: after the last
// line break before n when that keeps at least half of n, else at the
// start of the rune n falls in.
func headEnd(s string, n int) int {
	if i := strings.LastIndexByte(s[:n], '\n'); i >= 0 && i+1 >= n/2 {
		return i + 1
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// tailStart is where a tail of at most len(s)-i bytes of s starts: at i
// when a line starts there, after the first line break from i when that
// keeps at least half of it, else at the first rune start from i.
func tailStart(s string, i int) int {
	if i > 0 && s[i-1] == '\n' {
		return i
	}
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 && len(s)-(i+j+1) >= (len(s)-i)/2 {
		return i + j + 1
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// Page is where the page of s at offset, limit bytes long, starts and
// ends, moved to UTF-8 boundaries: from back to the start of the rune
// offset falls in, to back to a rune start (yet past from: a page holds at
// least one rune). offset must be within s.
func Page(s string, offset, limit int) (from, to int) {
	from = min(max(offset, 0), len(s))
	for from > 0 && from < len(s) && !utf8.RuneStart(s[from]) {
		from--
	}
	to = min(from+max(limit, 1), len(s))
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to--
	}
	if to <= from && from < len(s) {
		_, size := utf8.DecodeRuneInString(s[from:])
		to = from + size
	}
	return from, to
}
