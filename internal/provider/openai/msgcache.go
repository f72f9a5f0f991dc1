package openai

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Bounds of the two caches of a provider: its agents' tool arrays (~12 KB
// of schemas each) and conversation messages, in bytes of encodings and
// of the text they hold alive.
const (
	maxToolsCache   = 1 << 20
	maxMessageCache = 4 << 20
)

// encCaches are a provider's encoding caches. A conversation is sent whole
// on every model call, so without them each turn escapes the whole
// history, the system prompt and the tool schemas again; with them, a
// turn encodes only its new messages, and a conversation named in the
// request (convCache) copies its earlier messages' encoding in one piece.
type encCaches struct {
	tools encCache[[]beamclaw.ToolDef]
	msgs  encCache[wireText]
	parts encCache[textPart] // the marked system message's parts (cachemark.go)
	convs convCache
}

// wireText is a message whose wire form is text: its role, content and
// (tool results) call id.
type wireText struct {
	role, content, callID string
}

// toolsJSON returns the JSON array of the wire form of defs.
func (ec *encCaches) toolsJSON(defs []beamclaw.ToolDef) ([]byte, error) {
	h := ec.tools.hasher()
	for _, d := range defs {
		h.WriteString(d.Name)
		h.WriteByte(0)
		h.WriteString(d.Description)
		h.WriteByte(0)
		h.Write(d.Parameters)
		h.WriteByte(0)
	}
	key := h.Sum64()
	if b, ok := ec.tools.get(key, func(src []beamclaw.ToolDef) bool { return sameDefs(src, defs) }); ok {
		return b, nil
	}
	b, err := json.Marshal(wireTools(defs))
	if err != nil {
		return nil, err
	}
	ec.tools.put(key, slices.Clone(defs), b, 2*len(b), maxToolsCache)
	return b, nil
}

func sameDefs(a, b []beamclaw.ToolDef) bool {
	return slices.EqualFunc(a, b, func(x, y beamclaw.ToolDef) bool {
		return x.Name == y.Name && x.Description == y.Description && bytes.Equal(x.Parameters, y.Parameters)
	})
}

// appendMessage appends m's JSON: text messages (no tool calls, no
// attachments) through the cache, the others encoded as they are.
func (ec *encCaches) appendMessage(out []byte, m beamclaw.Message) ([]byte, error) {
	if len(m.ToolCalls) > 0 || m.Role == beamclaw.RoleUser && len(m.Attachments) > 0 {
		b, err := json.Marshal(encodeMessage(m))
		return append(out, b...), err
	}
	t := wireText{role: string(m.Role), content: m.Content}
	if m.Role == beamclaw.RoleTool {
		t.callID = m.ToolCallID // encodeMessage sends it for tool results only
	}
	return ec.appendText(out, t)
}

// appendText appends the JSON of a text message.
func (ec *encCaches) appendText(out []byte, t wireText) ([]byte, error) {
	h := ec.msgs.hasher()
	h.WriteString(t.role)
	h.WriteByte(0)
	h.WriteString(t.callID)
	h.WriteByte(0)
	h.WriteString(t.content)
	key := h.Sum64()
	if b, ok := ec.msgs.get(key, func(src wireText) bool { return src == t }); ok {
		return append(out, b...), nil
	}
	b, err := json.Marshal(wireMessage{Role: t.role, Content: t.content, ToolCallID: t.callID})
	if err != nil {
		return out, err
	}
	ec.msgs.put(key, t, b, len(b)+len(t.content), maxMessageCache)
	return append(out, b...), nil
}
