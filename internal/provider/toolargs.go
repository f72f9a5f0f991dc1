package provider

import (
	"encoding/json"
	"strings"
)

// ToolArgs is a streamed tool call's arguments as a ToolCall holds them:
// valid JSON as is, anything else wrapped as a JSON string (so the loop
// can report bad arguments to the model), "{}" for none.
func ToolArgs(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
