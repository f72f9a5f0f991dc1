package toolparse

import (
	"encoding/json"
	"strings"
)

// fencedCalls finds calls in fenced code blocks whose info string is
// "json" and whose body is a call object {"tool": ..., "args": {...}} (or
// "name"/"arguments"), or an array of them. Other fences are skipped
// whole, so JSON quoted inside them is never read.
func fencedCalls(s string) []found {
	var out []found
	for pos := 0; pos < len(s) && len(out) < MaxCalls; {
		start, bodyStart, bodyEnd, end, info, ok := nextFence(s, pos)
		if !ok {
			break
		}
		pos = end
		if !strings.EqualFold(info, "json") {
			continue
		}
		for _, f := range fencedBody(s[bodyStart:bodyEnd]) {
			if len(out) == MaxCalls {
				break
			}
			f.start, f.end = start, end
			out = append(out, f)
		}
	}
	return out
}

// fencedBody parses a json fence: one call object or an array of call
// objects. Anything else, or an array with one non-call, yields nothing.
func fencedBody(body string) []found {
	body = strings.TrimSpace(body)
	if strings.HasPrefix(body, "{") {
		if f, ok := callObject([]byte(body), true); ok {
			return []found{f}
		}
		return nil
	}
	var items []json.RawMessage
	if !strings.HasPrefix(body, "[") || json.Unmarshal([]byte(body), &items) != nil {
		return nil
	}
	var fs []found
	for _, it := range items {
		f, ok := callObject(it, true)
		if !ok {
			return nil
		}
		fs = append(fs, f)
	}
	return fs
}

// nextFence finds the next fenced code block at or after pos: an opening
// line of three or more backticks (indented at most three spaces) with an
// info string, and a closing line of at least as many backticks. It
// returns the block's span (closing line included, its newline not), the
// body's span and the info string. An unclosed fence is not a block.
func nextFence(s string, pos int) (start, bodyStart, bodyEnd, end int, info string, ok bool) {
	for pos < len(s) {
		line, next := lineAt(s, pos)
		n, rest := fenceMarker(line)
		if n == 0 || strings.Contains(rest, "`") {
			pos = next
			continue
		}
		for p := next; p < len(s); {
			l, nx := lineAt(s, p)
			if m, r := fenceMarker(l); m >= n && strings.TrimSpace(r) == "" {
				return pos, next, p, p + len(l), strings.TrimSpace(rest), true
			}
			p = nx
		}
		return 0, 0, 0, 0, "", false
	}
	return 0, 0, 0, 0, "", false
}

// lineAt returns the line starting at pos (without its newline) and the
// index of the next line.
func lineAt(s string, pos int) (string, int) {
	if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
		return s[pos : pos+i], pos + i + 1
	}
	return s[pos:], len(s)
}

// fenceMarker returns the number of backticks opening line (0 if it is not
// a fence line) and what follows them.
func fenceMarker(line string) (int, string) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return 0, ""
	}
	n := len(t) - len(strings.TrimLeft(t, "`"))
	if n < 3 {
		return 0, ""
	}
	return n, strings.TrimRight(t[n:], "\r")
}
