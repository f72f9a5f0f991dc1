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

// textPart is a text content part, marked with a breakpoint or not.
type textPart struct {
	text   string
	marked bool
}

// appendMarkedSystem appends the system message as parts: the stable
// one marked (with the tools before it, the prefix shared by every user
// and turn of the agent), then the context; each part's encoding comes
// from the parts cache, as a text message's does.
func (ec *encCaches) appendMarkedSystem(out []byte, req beamclaw.ChatRequest) ([]byte, error) {
	out = append(out, `{"role":"system","content":[`...)
	var err error
	for i, p := range []textPart{{req.System, true}, {req.Context, false}} {
		if p.text == "" {
			continue
		}
		if i > 0 && req.System != "" {
			out = append(out, ',')
		}
		if out, err = ec.appendPart(out, p); err != nil {
			return out, err
		}
	}
	return append(out, "]}"...), nil
}

// appendPart appends the JSON of a text part.
func (ec *encCaches) appendPart(out []byte, p textPart) ([]byte, error) {
	h := ec.parts.hasher()
	h.WriteString(p.text)
	if p.marked {
		h.WriteByte(1)
	}
	key := h.Sum64()
	if b, ok := ec.parts.get(key, func(src textPart) bool { return src == p }); ok {
		return append(out, b...), nil
	}
	cp := contentPart{Type: "text", Text: p.text}
	if p.marked {
		cp.CacheControl = ephemeral
	}
	b, err := json.Marshal(cp)
	if err != nil {
		return out, err
	}
	ec.parts.put(key, p, b, len(b)+len(p.text), maxMessageCache)
	return append(out, b...), nil
}

// appendMarkedMessages is appendMessages with the last part of the
// previous turn's last message (turnStart - 1) marked, so a continuing
// conversation reads its whole history from the cache; the messages
// before it still come from the conversation's cache.
func (ec *encCaches) appendMarkedMessages(out []byte, conv string, msgs []beamclaw.Message, turnStart int) ([]byte, error) {
	if turnStart <= 0 || turnStart > len(msgs) {
		return ec.appendMessages(out, conv, msgs)
	}
	k := turnStart - 1
	out, err := ec.appendMessages(out, conv, msgs[:k])
	if err != nil {
		return out, err
	}
	if k > 0 {
		out = append(out, ',')
	}
	w := encodeMessage(msgs[k])
	markLast(&w)
	b, err := json.Marshal(w)
	if err != nil {
		return out, err
	}
	out = append(out, b...)
	for _, m := range msgs[k+1:] {
		if out, err = ec.appendMessage(append(out, ','), m); err != nil {
			return out, err
		}
	}
	return out, nil
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
