// Package toolparse extracts the tool calls of an assistant message along
// the fallback chain of the spec: native tool_calls, then XML blocks
// (<tool_call>, <toolcall>, <invoke>), then fenced ```json blocks, then
// none. It matches structured delimiters only and never pulls JSON out of
// free text. It imports only internal/beamclaw and the standard library;
// the agentic loop and provider adapters import it.
package toolparse

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// MaxCalls caps the calls taken from one message's text; further blocks
// stay in the text.
const MaxCalls = 32

// Call sources, as set in beamclaw.ToolCall.Source.
const (
	SourceNative = "native"
	SourceXML    = "xml"
	SourceFenced = "fenced"
)

// IDFunc returns the id of the n-th call (counting from 1) of a message
// when the call carries none. Ids must be unique within a conversation.
type IDFunc func(n int) string

// Parser extracts tool calls. The zero value is not usable; use New.
type Parser struct {
	ids IDFunc
}

// New returns a Parser that names id-less calls with ids. With a nil ids
// it derives them from the message content: "call_<n>_<hash>", the same
// for the same message, different for different ones.
func New(ids IDFunc) *Parser { return &Parser{ids: ids} }

// Parse is New(nil).Parse.
func Parse(msg beamclaw.Message) ([]beamclaw.ToolCall, string) { return New(nil).Parse(msg) }

// Parse returns the tool calls of msg and the text a user should see. The
// first kind that yields calls wins: native msg.ToolCalls (text unchanged),
// then XML blocks, then fenced JSON blocks (text without the parsed blocks,
// trimmed). Blocks with an invalid name or arguments that are not a JSON
// object are skipped and left in the text. With no calls it returns nil
// and msg.Content.
func (p *Parser) Parse(msg beamclaw.Message) ([]beamclaw.ToolCall, string) {
	ids := p.idFunc(msg.Content)
	if len(msg.ToolCalls) > 0 {
		return native(msg.ToolCalls, ids), msg.Content
	}
	for _, kind := range []struct {
		source string
		find   func(string) []found
	}{{SourceXML, xmlCalls}, {SourceFenced, fencedCalls}} {
		if fs := kind.find(msg.Content); len(fs) > 0 {
			return finish(fs, kind.source, ids), removeSpans(msg.Content, fs)
		}
	}
	return nil, msg.Content
}

func (p *Parser) idFunc(content string) IDFunc {
	if p.ids != nil {
		return p.ids
	}
	var h string // computed on first use: most messages need no id
	return func(n int) string {
		if h == "" {
			sum := sha256.Sum256([]byte(content))
			h = hex.EncodeToString(sum[:5])
		}
		return "call_" + strconv.Itoa(n) + "_" + h
	}
}

// found is one call parsed from text, with the span of its block.
type found struct {
	id, name   string
	args       json.RawMessage
	start, end int
}

// native copies provider-parsed calls, naming id-less ones and turning
// empty arguments into {}.
func native(in []beamclaw.ToolCall, ids IDFunc) []beamclaw.ToolCall {
	out := make([]beamclaw.ToolCall, len(in))
	used := make(map[string]bool, len(in))
	for i, c := range in {
		c.Source = SourceNative
		if c.ID == "" || used[c.ID] {
			c.ID = freshID(ids, i+1, used)
		}
		used[c.ID] = true
		if len(strings.TrimSpace(string(c.Args))) == 0 {
			c.Args = json.RawMessage("{}")
		}
		out[i] = c
	}
	return out
}

// finish turns found calls into ToolCalls with unique ids.
func finish(fs []found, source string, ids IDFunc) []beamclaw.ToolCall {
	out := make([]beamclaw.ToolCall, len(fs))
	used := make(map[string]bool, len(fs))
	for i, f := range fs {
		id := f.id
		if id == "" || used[id] {
			id = freshID(ids, i+1, used)
		}
		used[id] = true
		out[i] = beamclaw.ToolCall{ID: id, Name: f.name, Args: f.args, Source: source}
	}
	return out
}

// freshID asks ids for the n-th id, appending a suffix if it is taken.
func freshID(ids IDFunc, n int, used map[string]bool) string {
	id := ids(n)
	for k := 2; used[id] || id == ""; k++ {
		id = ids(n) + "_" + strconv.Itoa(k)
	}
	return id
}

// removeSpans returns s without the blocks of fs (in order, disjoint),
// trimmed, with the text around each block joined tidily.
func removeSpans(s string, fs []found) string {
	var b strings.Builder
	last := 0
	for _, f := range fs {
		if f.start < last {
			continue
		}
		b.WriteString(s[last:f.start])
		last = f.end
		switch {
		case f.start > 0 && last < len(s) && isWord(s[f.start-1]) && isWord(s[last]):
			b.WriteByte(' ') // "call<tool_call>...</tool_call>now"
		case f.start > 0 && last < len(s) && isBlank(s[f.start-1]) && isBlank(s[last]):
			last++ // "a <tool_call>...</tool_call> b": keep one space
		}
	}
	b.WriteString(s[last:])
	return strings.TrimSpace(collapseBlankLines(b.String()))
}

func isWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// collapseBlankLines turns runs of three or more newlines (with only
// blanks between) into two.
func collapseBlankLines(s string) string {
	if !strings.Contains(s, "\n\n\n") && !strings.Contains(s, "\n \n") {
		return s
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			blank++
			if blank > 1 {
				continue
			}
			l = ""
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
