package openai

import "strings"

// reasoningTags are the tag names whose blocks are removed from visible
// text (matched case-insensitively, without attributes).
var reasoningTags = [...]string{"think", "thinking", "reasoning"}

// maxOpenTag is the length of the longest opening tag ("<reasoning>").
const maxOpenTag = len("<reasoning>")

// thinkFilter removes <think>...</think> (and <thinking>, <reasoning>)
// blocks from a stream of text pieces, wherever the pieces split the
// tags: a possible partial tag is held back until the next piece decides
// it. Whitespace right after a block is dropped. An unclosed block hides
// the rest of the stream. Text outside blocks passes through untouched.
type thinkFilter struct {
	pending string           // held input: a partial opening tag, or the tail of a block
	closing string           // the closing tag awaited ("</think>"); "" outside a block
	skipWS  bool             // drop whitespace right after a block
	tail    string           // emitted partial opening tag a block interrupted ("<thi")
	recent  [maxOpenTag]byte // the last nrecent bytes emitted
	nrecent int
}

// Write takes the next piece of text and returns what is now visible.
func (f *thinkFilter) Write(piece string) string {
	if f.pending == "" && f.closing == "" && !f.skipWS && f.tail == "" && strings.IndexByte(piece, '<') < 0 {
		f.remember(piece) // plain text, nothing held: passes as it is
		return piece
	}
	s := f.pending + piece
	f.pending = ""
	var out strings.Builder
	for s != "" {
		if f.closing != "" {
			i := indexFold(s, f.closing)
			if i < 0 {
				f.pending = s[len(s)-partialSuffix(s, f.closing):]
				break
			}
			s, f.closing, f.skipWS = s[i+len(f.closing):], "", true
			continue
		}
		if f.skipWS {
			if s = strings.TrimLeft(s, " \t\r\n"); s == "" {
				break
			}
			f.skipWS = false
		}
		var stop bool
		if s, stop = f.afterBlock(s); stop {
			break
		}
		if f.closing != "" {
			continue
		}
		i := strings.IndexByte(s, '<')
		if i < 0 {
			f.emit(&out, s)
			break
		}
		f.emit(&out, s[:i])
		s = s[i:]
		switch tag, n := matchOpen(s); {
		case n > 0:
			f.open(tag)
			s = s[n:]
		case tag != "": // partial: wait for more
			f.pending = s
			return out.String()
		default:
			f.emit(&out, "<")
			s = s[1:]
		}
	}
	return out.String()
}

// afterBlock handles the text right after a block when the text emitted
// before the block ended in a partial opening tag: completing that tag
// across the removed block opens a new block instead of showing the tag.
func (f *thinkFilter) afterBlock(s string) (rest string, stop bool) {
	if f.tail == "" {
		return s, false
	}
	cand := f.tail + s[:min(len(s), maxOpenTag)]
	if tag, n := matchOpen(cand); n > 0 {
		used := n - len(f.tail)
		f.open(tag)
		return s[used:], false
	} else if tag != "" {
		f.pending = s
		return "", true
	}
	if tag, n := matchOpen(s); n > 0 || tag != "" {
		return s, false // another block (or its start) follows: keep the tail
	}
	f.tail = ""
	return s, false
}

func (f *thinkFilter) open(tag string) {
	f.closing = "</" + tag + ">"
	f.tail = partialOpenSuffix(string(f.recent[:f.nrecent]))
}

func (f *thinkFilter) emit(out *strings.Builder, s string) {
	if s == "" {
		return
	}
	out.WriteString(s)
	f.tail = ""
	f.remember(s)
}

// remember keeps the last maxOpenTag bytes of what was emitted.
func (f *thinkFilter) remember(s string) {
	if len(s) >= maxOpenTag {
		f.nrecent = copy(f.recent[:], s[len(s)-maxOpenTag:])
		return
	}
	keep := min(f.nrecent, maxOpenTag-len(s))
	copy(f.recent[:], f.recent[f.nrecent-keep:f.nrecent])
	f.nrecent = keep + copy(f.recent[keep:], s)
}

// Flush ends the stream: a held partial tag outside a block was text.
func (f *thinkFilter) Flush() string {
	p := f.pending
	f.pending = ""
	if f.closing != "" || p == "" {
		return ""
	}
	if f.skipWS {
		p = strings.TrimLeft(p, " \t\r\n")
	}
	return p
}

// matchOpen reports the reasoning tag s starts with: n > 0 for a complete
// opening tag of length n; tag set with n == 0 when s is a proper prefix
// of one (more input may complete it); "" when s starts no such tag.
func matchOpen(s string) (tag string, n int) {
	for _, t := range reasoningTags {
		open := "<" + t + ">"
		switch {
		case len(s) >= len(open) && strings.EqualFold(s[:len(open)], open):
			return t, len(open)
		case len(s) < len(open) && strings.EqualFold(s, open[:len(s)]):
			tag = t
		}
	}
	return tag, 0
}

// partialOpenSuffix returns the suffix of s from its last '<' when that
// is a proper prefix of an opening tag, else "".
func partialOpenSuffix(s string) string {
	i := strings.LastIndexByte(s, '<')
	if i < 0 {
		return ""
	}
	if tag, n := matchOpen(s[i:]); tag != "" && n == 0 {
		return s[i:]
	}
	return ""
}

// indexFold is a case-insensitive strings.Index for an ASCII needle.
func indexFold(s, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if s[i] == '<' && strings.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// partialSuffix is the length of the longest proper prefix of tag that s
// ends with.
func partialSuffix(s, tag string) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if strings.EqualFold(s[len(s)-k:], tag[:k]) {
			return k
		}
	}
	return 0
}
