package tool

import (
	"bytes"
	"encoding/json"
)

// ArgShape is the key an "always" approval allowlists: the tool name, one
// space, and the call's arguments normalised to compact JSON with object
// keys sorted at every depth (numbers keep their literal text). So
// approving `bash {"script":"ls"}` "always" approves exactly that script
// again, never bash as such; a different argument, or one more argument,
// asks again. Empty or null arguments normalise to {}. Arguments that are
// not valid JSON keep their compacted-or-raw text, so they only ever match
// themselves (and are rejected by Run before execution anyway).
func ArgShape(toolName string, args json.RawMessage) string {
	return toolName + " " + canonicalJSON(args)
}

func canonicalJSON(raw json.RawMessage) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return "{}"
	}
	v, err := decodeJSON(trimmed)
	if err != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, trimmed) == nil {
			return buf.String()
		}
		return string(trimmed)
	}
	// encoding/json sorts map keys and writes json.Number verbatim.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(trimmed)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
