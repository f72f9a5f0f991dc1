package toolparse

import (
	"encoding/json"
	"strings"
)

// xmlTags are the elements that wrap one tool call.
var xmlTags = []string{"tool_call", "toolcall", "invoke"}

// openTag is an opening tag found in text: <tag> or <tag attrs>.
type openTag struct {
	start, bodyStart int
	kind             int // index in xmlTags
	attrs            string
}

// xmlCalls finds the calls in XML blocks, in order. A block is an opening
// tag, a body and the first matching closing tag; an opening tag without a
// closing one is prose. When a body holds another opening tag of its own
// kind, the outer tag is prose too and the scan restarts inside, so the
// innermost well-formed block wins.
func xmlCalls(s string) []found {
	var out []found
	x := newXMLScanner(s)
	for from := 0; len(out) < MaxCalls; {
		o, ok := x.nextOpen(from)
		if !ok {
			break
		}
		from = o.bodyStart
		c := x.nextClose(o)
		if c < 0 {
			continue
		}
		if inner, ok := x.openOfKind(o.kind, o.bodyStart); ok && inner.start < c {
			continue
		}
		end := c + len("</"+xmlTags[o.kind]+">")
		from = end
		if f, ok := xmlBody(o.attrs, s[o.bodyStart:c]); ok {
			f.start, f.end = o.start, end
			out = append(out, f)
		}
	}
	return out
}

// xmlScanner remembers, per tag kind, the next opening and closing tag it
// found. Queries only move forward, so each kind's tags are searched for
// once across the text: the scan stays linear on adversarial markup.
type xmlScanner struct {
	s       string
	open    [3]openTag // next opening tag per kind; start -1: none ahead
	known   [3]bool    // open[k] has been searched for
	closeAt [3]int     // next closing tag per kind; -1 none ahead, -2 unknown
}

func newXMLScanner(s string) *xmlScanner {
	return &xmlScanner{s: s, closeAt: [3]int{-2, -2, -2}}
}

// nextOpen returns the earliest opening tag at or after from whose kind
// still has a closing tag ahead.
func (x *xmlScanner) nextOpen(from int) (openTag, bool) {
	best := openTag{start: -1}
	for k := range xmlTags {
		if x.closeAt[k] == -1 {
			continue
		}
		if o, ok := x.openOfKind(k, from); ok && (best.start < 0 || o.start < best.start) {
			best = o
		}
	}
	return best, best.start >= 0
}

// openOfKind returns the first opening tag of kind k at or after from.
func (x *xmlScanner) openOfKind(k, from int) (openTag, bool) {
	if !x.known[k] || (x.open[k].start >= 0 && x.open[k].start < from) {
		o, ok := firstOpen(x.s, from, k)
		if !ok {
			o.start = -1
		}
		x.open[k], x.known[k] = o, true
	}
	return x.open[k], x.open[k].start >= 0
}

// nextClose returns the index of the first closing tag of o's kind after
// its opening tag, or -1.
func (x *xmlScanner) nextClose(o openTag) int {
	if c := x.closeAt[o.kind]; c == -1 || c >= o.bodyStart {
		return c
	}
	c := strings.Index(x.s[o.bodyStart:], "</"+xmlTags[o.kind]+">")
	if c >= 0 {
		c += o.bodyStart
	}
	x.closeAt[o.kind] = c
	return c
}

// firstOpen finds the first opening tag of kind k at or after from.
func firstOpen(s string, from, k int) (openTag, bool) {
	prefix := "<" + xmlTags[k]
	for from < len(s) {
		i := strings.Index(s[from:], prefix)
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		j := i + len(prefix)
		if j >= len(s) || (s[j] != '>' && !isSpace(s[j])) {
			continue
		}
		gt := strings.IndexByte(s[j:], '>')
		if gt < 0 {
			break
		}
		if attrs := s[j : j+gt]; !strings.Contains(attrs, "<") {
			return openTag{start: i, bodyStart: j + gt + 1, kind: k, attrs: strings.TrimSpace(attrs)}, true
		}
	}
	return openTag{}, false
}

// xmlBody parses a block's body: a JSON call object (the Hermes and Qwen
// form), or <name> and <args>/<arguments> elements (or a name="..."
// attribute and <parameter name="..."> elements).
func xmlBody(attrs, body string) (found, bool) {
	if t := strings.TrimSpace(body); strings.HasPrefix(t, "{") {
		return callObject([]byte(t), false)
	}
	var f found
	argStart, argEnd, argBody, hasArgs := element(body, 0, "args", "arguments")
	_, _, name, hasName := element(body, 0, "name")
	if hasName && hasArgs && strings.Index(body, "<name>") > argStart {
		_, _, name, hasName = element(body[argEnd:], 0, "name") // "<name>" inside the arguments
	}
	if !hasName {
		name, hasName = attr(attrs, "name")
	}
	if f.name = strings.TrimSpace(name); !hasName || !ValidName(f.name) {
		return found{}, false
	}
	var ok bool
	switch {
	case hasArgs:
		f.args, ok = objectArgs([]byte(argBody))
	default:
		f.args, ok = parameters(body)
	}
	if id, has := attr(attrs, "id"); has && ValidName(id) {
		f.id = id
	}
	return f, ok
}

// element finds the first <tag>...</tag> for any of tags at or after from
// and returns its span and content.
func element(s string, from int, tags ...string) (start, end int, content string, ok bool) {
	start = -1
	var tag string
	for _, t := range tags {
		if i := strings.Index(s[from:], "<"+t+">"); i >= 0 && (start < 0 || from+i < start) {
			start, tag = from+i, t
		}
	}
	if start < 0 {
		return 0, 0, "", false
	}
	cs := start + len(tag) + 2
	c := strings.Index(s[cs:], "</"+tag+">")
	if c < 0 {
		return 0, 0, "", false
	}
	return start, cs + c + len(tag) + 3, s[cs : cs+c], true
}

// parameters builds an arguments object from <parameter name="k">v</parameter>
// elements: v is taken as JSON when it is an object or array, else as a
// string. No parameters gives {}.
func parameters(body string) (json.RawMessage, bool) {
	args := map[string]json.RawMessage{}
	const open, closing = "<parameter", "</parameter>"
	for i := 0; ; {
		j := strings.Index(body[i:], open)
		if j < 0 {
			break
		}
		j += i
		gt := strings.IndexByte(body[j:], '>')
		c := strings.Index(body[j:], closing)
		if gt < 0 || c < 0 || c < gt {
			break
		}
		name, ok := attr(" "+body[j+len(open):j+gt], "name")
		if !ok || !ValidName(name) {
			return nil, false
		}
		v := strings.TrimSpace(body[j+gt+1 : j+c])
		if (strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")) && json.Valid([]byte(v)) {
			args[name] = json.RawMessage(v)
		} else {
			enc, err := json.Marshal(v)
			if err != nil {
				return nil, false
			}
			args[name] = enc
		}
		i = j + c + len(closing)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, false
	}
	return objectArgs(raw)
}
