package openai

import (
	"encoding/json"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// cacheControl is the breakpoint OpenRouter passes on to Anthropic and
// Gemini models: the prompt up to and including the marked part is
// written to the provider's cache and read from it by the next request
// with the same prefix.
type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// systemText is the system message's text: the stable part, then the
// part per user and turn.
func systemText(req beamclaw.ChatRequest) string {
	if req.Context == "" {
		return req.System
	}
	return req.System + req.Context
}

// cacheMarked reports whether a request to model carries cache
// breakpoints (Options.CacheBreakpoints).
func (c *Client) cacheMarked(model string) bool {
	switch c.marks {
	case provider.CacheOn:
		return true
	case provider.CacheOff:
		return false
	}
	m := strings.ToLower(model)
	return strings.HasPrefix(m, "anthropic/") || strings.HasPrefix(m, "google/gemini")
}

// encodeMarked is the wire request with its two cache breakpoints: the
// system message as parts, the stable one marked (with the tools before
// it, the prefix shared by every user and turn of the agent), and the
// last part of the previous turn's last message (req.TurnStart - 1), so a
// continuing conversation reads its whole history from the cache.
func encodeMarked(req beamclaw.ChatRequest, model string, maxCompletion bool) chatRequest {
	out := encodeChat(req, model, maxCompletion)
	first := 0
	if req.System != "" || req.Context != "" {
		parts := []contentPart{}
		if req.System != "" {
			parts = append(parts, contentPart{Type: "text", Text: req.System, CacheControl: ephemeral})
		}
		if req.Context != "" {
			parts = append(parts, contentPart{Type: "text", Text: req.Context})
		}
		out.Messages[0].Content = parts
		first = 1
	}
	if i := first + req.TurnStart - 1; req.TurnStart > 0 && i < len(out.Messages) {
		markLast(&out.Messages[i])
	}
	return out
}

// markLast puts the breakpoint on a message's last content part, turning
// text content into one part; a message without content (an assistant's
// tool calls only) stays unmarked.
func markLast(m *wireMessage) {
	switch c := m.Content.(type) {
	case string:
		if c != "" {
			m.Content = []contentPart{{Type: "text", Text: c, CacheControl: ephemeral}}
		}
	case []contentPart:
		if len(c) > 0 {
			c[len(c)-1].CacheControl = ephemeral
		}
	}
}

// appendJSON appends v's JSON to dst.
func appendJSON(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}
