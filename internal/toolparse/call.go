package toolparse

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ValidName reports whether name can name a tool: 1 to 128 characters of
// [A-Za-z0-9_.:-].
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '_' || c == '.' || c == ':' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// objectArgs returns raw compacted when it is a JSON object, or a JSON
// string holding one (OpenAI encodes arguments that way).
func objectArgs(raw []byte) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil, false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, false
	}
	return json.RawMessage(buf.Bytes()), true
}

// Keys of a call object: {"name": ..., "arguments": {...}} and its
// spellings.
var (
	nameKeys  = []string{"name", "tool"}
	argsKeys  = []string{"arguments", "args", "parameters"}
	otherKeys = []string{"id", "type"}
)

// callObject decodes a JSON call object. strict (fenced blocks, which
// might be any JSON a model shows) requires the arguments key and allows
// no keys beyond name, arguments, id and type.
func callObject(raw []byte, strict bool) (found, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return found{}, false
	}
	nameRaw, ok := only(m, nameKeys)
	if !ok {
		return found{}, false
	}
	var f found
	if err := json.Unmarshal(nameRaw, &f.name); err != nil || !ValidName(f.name) {
		return found{}, false
	}
	argsRaw, ok := only(m, argsKeys)
	switch {
	case ok:
		if f.args, ok = objectArgs(argsRaw); !ok {
			return found{}, false
		}
	case strict:
		return found{}, false
	default:
		f.args = json.RawMessage("{}")
	}
	if idRaw, has := m["id"]; has {
		if err := json.Unmarshal(idRaw, &f.id); err != nil || !ValidName(f.id) {
			f.id = ""
		}
	}
	if strict && len(m) > countKeys(m, nameKeys, argsKeys, otherKeys) {
		return found{}, false
	}
	return f, true
}

// only returns the value of the one key of keys present in m; none or
// several (ambiguous) is not ok.
func only(m map[string]json.RawMessage, keys []string) (json.RawMessage, bool) {
	var v json.RawMessage
	n := 0
	for _, k := range keys {
		if x, ok := m[k]; ok {
			v = x
			n++
		}
	}
	return v, n == 1
}

func countKeys(m map[string]json.RawMessage, lists ...[]string) int {
	n := 0
	for _, l := range lists {
		for _, k := range l {
			if _, ok := m[k]; ok {
				n++
			}
		}
	}
	return n
}

// attr returns the value of name="..." (or '...') in a tag's attributes.
func attr(attrs, name string) (string, bool) {
	for i := 0; ; {
		j := strings.Index(attrs[i:], name+"=")
		if j < 0 {
			return "", false
		}
		j += i
		i = j + 1
		if j > 0 && !isSpace(attrs[j-1]) {
			continue
		}
		v := j + len(name) + 1
		if v >= len(attrs) || (attrs[v] != '"' && attrs[v] != '\'') {
			continue
		}
		if e := strings.IndexByte(attrs[v+1:], attrs[v]); e >= 0 {
			return attrs[v+1 : v+1+e], true
		}
		return "", false
	}
}
