package openai

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// maxToolSets bounds the encoded tool arrays kept per provider (one per
// agent and tool set in use; the cache starts over when full).
const maxToolSets = 32

// toolCache keeps the JSON of the tool arrays a provider was sent, by the
// content of the tool definitions: a request carries ~12 KB of schemas
// that would otherwise be encoded and re-validated on every model call.
type toolCache struct {
	mu   sync.Mutex
	seed maphash.Seed
	enc  map[uint64][]byte
}

// encoded returns the JSON array of wire, the wire form of defs.
func (tc *toolCache) encoded(defs []beamclaw.ToolDef, wire []wireTool) ([]byte, error) {
	tc.mu.Lock()
	if tc.enc == nil {
		tc.seed, tc.enc = maphash.MakeSeed(), make(map[uint64][]byte)
	}
	var h maphash.Hash
	h.SetSeed(tc.seed)
	for _, d := range defs {
		h.WriteString(d.Name)
		h.WriteByte(0)
		h.WriteString(d.Description)
		h.WriteByte(0)
		h.Write(d.Parameters)
		h.WriteByte(0)
	}
	key := h.Sum64()
	b, ok := tc.enc[key]
	tc.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, err
	}
	tc.mu.Lock()
	if len(tc.enc) >= maxToolSets {
		clear(tc.enc)
	}
	tc.enc[key] = b
	tc.mu.Unlock()
	return b, nil
}

// encodeBody is the JSON body of a chat request: the tools array comes from
// the cache and is spliced in as the last member, in one buffer sized for
// the whole body.
func (c *Client) encodeBody(req beamclaw.ChatRequest, model string) ([]byte, error) {
	w := encodeChat(req, model, c.maxCompletion)
	if len(w.Tools) == 0 {
		return json.Marshal(w)
	}
	tools, err := c.t.tools.encoded(req.Tools, w.Tools)
	if err != nil {
		return nil, err
	}
	w.Tools = nil
	size := len(tools) + 1024
	for _, m := range req.Messages {
		size += len(m.Content) + len(m.Content)/8 + 64 // escapes and the message's own members
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(buf)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	buf.Truncate(buf.Len() - 2) // the closing brace and Encode's newline
	buf.WriteString(`,"tools":`)
	buf.Write(tools)
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
