package openai

import (
	"bytes"
	"slices"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Bounds of the conversation cache, in bytes of encodings plus the copies
// of the messages they were made from: all conversations, and one (a
// longer conversation keeps the entry it had, still a valid prefix, so
// one huge conversation cannot keep emptying the cache for the others).
const (
	maxConvCache = 4 << 20
	maxConvEntry = maxConvCache / 8
)

// copyCost is what keeping a copy of a message costs besides its bytes:
// the struct, a slot of the growing array (estimated, in bytes).
const copyCost = 256

// convCache keeps, per conversation (ChatRequest.Conversation), the
// messages of its last model call and their encoding. A conversation
// grows at its end, so the next call finds its earlier messages unchanged
// and copies their encoding in one piece: no hashing, no lookup and no
// encoding per message, tool calls and attachments included. A prefix is
// used only as far as every message is the same as the one encoded (see
// sameMessage); past the bound the cache starts over.
type convCache struct {
	mu      sync.Mutex
	entries bounded[string, *convPrefix]
}

// convPrefix is what a conversation sent last: copies of its messages
// (their byte slices cloned, so a caller changing one in place cannot
// make it compare equal) and their JSON, comma separated. An entry is
// never changed once stored; a longer one may share its arrays, written
// only past this entry's length.
type convPrefix struct {
	msgs []beamclaw.Message
	enc  []byte
	cost int
}

func (c *convCache) get(conv string) *convPrefix {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, _ := c.entries.get(conv)
	return p
}

// extend stores conv's messages: base (the entry the call started from,
// nil for none) with the messages added after it and their encoding
// (comma first when base is not empty).
func (c *convCache) extend(conv string, base *convPrefix, added []beamclaw.Message, enc []byte) {
	if base == nil {
		base = &convPrefix{}
	}
	cost := base.cost + 2*len(enc)
	for _, m := range added {
		cost += copyCost * (1 + len(m.ToolCalls) + len(m.Attachments))
	}
	if cost > maxConvEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs, encs := base.msgs, base.enc
	if old, _ := c.entries.get(conv); old != base {
		// Another call moved the conversation on meanwhile: base's arrays
		// may already hold its messages past base's length.
		msgs, encs = slices.Clip(msgs), slices.Clip(encs)
	}
	for _, m := range added {
		msgs = append(msgs, cloneMessage(m))
	}
	c.entries.put(conv, &convPrefix{msgs: msgs, enc: append(encs, enc...), cost: cost}, cost, maxConvCache)
}

// appendMessages appends the JSON of msgs, comma separated: the prefix
// conv sent last time as it was encoded, the rest message by message.
func (ec *encCaches) appendMessages(out []byte, conv string, msgs []beamclaw.Message) ([]byte, error) {
	var base *convPrefix
	n := 0
	if conv != "" {
		if p := ec.convs.get(conv); p != nil && len(p.msgs) <= len(msgs) &&
			slices.EqualFunc(p.msgs, msgs[:len(p.msgs)], sameMessage) {
			base, n = p, len(p.msgs)
			out = append(out, p.enc...)
		}
	}
	start := len(out)
	var err error
	for i := n; i < len(msgs); i++ {
		if i > 0 {
			out = append(out, ',')
		}
		if out, err = ec.appendMessage(out, msgs[i]); err != nil {
			return out, err
		}
	}
	if conv != "" && n < len(msgs) {
		ec.convs.extend(conv, base, msgs[n:], out[start:])
	}
	return out, nil
}

// sameMessage reports whether a and b encode alike: every member that
// reaches the wire is equal (ID and Time do not).
func sameMessage(a, b beamclaw.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID && a.Name == b.Name &&
		slices.EqualFunc(a.ToolCalls, b.ToolCalls, func(x, y beamclaw.ToolCall) bool {
			return x.ID == y.ID && x.Name == y.Name && x.Source == y.Source && bytes.Equal(x.Args, y.Args)
		}) &&
		slices.EqualFunc(a.Attachments, b.Attachments, func(x, y beamclaw.Attachment) bool {
			return x.MIME == y.MIME && x.Name == y.Name && bytes.Equal(x.Data, y.Data)
		})
}

// cloneMessage copies m with its own byte slices (strings are immutable).
func cloneMessage(m beamclaw.Message) beamclaw.Message {
	if m.ToolCalls != nil {
		m.ToolCalls = slices.Clone(m.ToolCalls)
		for i := range m.ToolCalls {
			m.ToolCalls[i].Args = bytes.Clone(m.ToolCalls[i].Args)
		}
	}
	if m.Attachments != nil {
		m.Attachments = slices.Clone(m.Attachments)
		for i := range m.Attachments {
			m.Attachments[i].Data = bytes.Clone(m.Attachments[i].Data)
		}
	}
	return m
}
