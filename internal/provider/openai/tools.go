package openai

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// maxEncoded bounds the tool arrays kept per provider (one per agent in
// use; the cache starts over when full).
const maxEncoded = 64

// encCache keeps the JSON of the agents' tool arrays (~12 KB of schemas
// each), keyed by a hash of their content, so a call encodes (and
// encoding/json re-validates) them only when they changed.
type encCache struct {
	mu   sync.Mutex
	seed maphash.Seed
	enc  map[uint64][]byte
}

// get returns the encoding stored under key, or encodes value() and
// stores it.
func (ec *encCache) get(key uint64, value func() any) ([]byte, error) {
	ec.mu.Lock()
	b, ok := ec.enc[key]
	ec.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := json.Marshal(value())
	if err != nil {
		return nil, err
	}
	ec.mu.Lock()
	if len(ec.enc) >= maxEncoded {
		clear(ec.enc)
	}
	ec.enc[key] = b
	ec.mu.Unlock()
	return b, nil
}

// hash starts h, a hash of content to key the cache (kind 't': tools).
func (ec *encCache) hash(h *maphash.Hash, kind byte) {
	ec.mu.Lock()
	if ec.enc == nil {
		ec.seed, ec.enc = maphash.MakeSeed(), make(map[uint64][]byte)
	}
	seed := ec.seed
	ec.mu.Unlock()
	h.SetSeed(seed)
	h.WriteByte(kind)
}

// tools returns the JSON array of the wire form of defs.
func (ec *encCache) tools(defs []beamclaw.ToolDef) ([]byte, error) {
	var h maphash.Hash
	ec.hash(&h, 't')
	for _, d := range defs {
		h.WriteString(d.Name)
		h.WriteByte(0)
		h.WriteString(d.Description)
		h.WriteByte(0)
		h.Write(d.Parameters)
		h.WriteByte(0)
	}
	return ec.get(h.Sum64(), func() any { return wireTools(defs) })
}

// encodeBody appends the JSON body of a chat request to dst[:0]: the
// members encoding/json writes, then the messages (each from the message
// cache) and the tools array (from the tools cache).
func (c *Client) encodeBody(dst []byte, req beamclaw.ChatRequest, model string) ([]byte, error) {
	var tools []byte
	if len(req.Tools) > 0 {
		var err error
		if tools, err = c.t.enc.tools(req.Tools); err != nil {
			return nil, err
		}
	}
	size := len(tools) + len(req.System) + 512
	for _, m := range req.Messages {
		size += len(m.Content) + len(m.Content)/8 + 64 // escapes and the message's own members
	}
	buf := bytes.NewBuffer(slices.Grow(dst[:0], size))
	if err := json.NewEncoder(buf).Encode(encodeChatHead(req, model, c.maxCompletion)); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	out = append(out[:len(out)-2], `,"messages":[`...) // the head's closing brace and Encode's newline
	var err error
	if req.System != "" {
		if out, err = c.t.msgs.appendSimple(out, beamclaw.RoleSystem, req.System, ""); err != nil {
			return nil, err
		}
	}
	for i, m := range req.Messages {
		if i > 0 || req.System != "" {
			out = append(out, ',')
		}
		if out, err = c.t.msgs.appendMessage(out, m); err != nil {
			return nil, err
		}
	}
	out = append(out, ']')
	if tools != nil {
		out = append(append(out, `,"tools":`...), tools...)
	}
	return append(out, '}'), nil
}
