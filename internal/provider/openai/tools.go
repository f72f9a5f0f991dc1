package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// maxEncoded bounds the encodings kept per provider (a tool set and a
// system prompt per agent in use; the cache starts over when full).
const maxEncoded = 64

// minCachedPrompt is the shortest system prompt worth caching.
const minCachedPrompt = 1 << 10

// encCache keeps the JSON of the parts of a request that repeat from call
// to call — the agent's tool array (~12 KB of schemas) and its system
// prompt — keyed by a hash of their content, so a call encodes (and
// encoding/json re-validates) only what changed.
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

// hash starts h, a hash of content to key the cache ('t' tools, 's' a
// prompt).
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

// prompt returns the JSON string of a system prompt.
func (ec *encCache) prompt(s string) ([]byte, error) {
	var h maphash.Hash
	ec.hash(&h, 's')
	h.WriteString(s)
	return ec.get(h.Sum64(), func() any { return s })
}

// promptMarker stands in for the cached system prompt while the rest of
// the request is encoded; it is the first string value after the model's
// name, so its first occurrence is always the one put there.
const promptMarker = "\x00beamclaw-system-prompt\x00"

var promptMarkerJSON = []byte(`"\u0000beamclaw-system-prompt\u0000"`)

// errMarkerLost would mean encoding/json wrote the marker otherwise.
var errMarkerLost = errors.New("encode request: the system prompt's place was not found")

// encodeBody appends the JSON body of a chat request to dst[:0] (grown
// once to its size): the system prompt and the tools array come from the
// cache, the tools spliced in as the last member.
func (c *Client) encodeBody(dst []byte, req beamclaw.ChatRequest, model string) ([]byte, error) {
	w := encodeChatHead(req, model, c.maxCompletion)
	var prompt, tools []byte
	var err error
	if len(w.Messages) > 0 && w.Messages[0].Role == string(beamclaw.RoleSystem) {
		if s, ok := w.Messages[0].Content.(string); ok && len(s) >= minCachedPrompt {
			if prompt, err = c.t.enc.prompt(s); err != nil {
				return nil, err
			}
			w.Messages[0].Content = promptMarker
		}
	}
	if len(req.Tools) > 0 {
		if tools, err = c.t.enc.tools(req.Tools); err != nil {
			return nil, err
		}
	}
	buf := bytes.NewBuffer(dst[:0])
	if prompt == nil && tools == nil {
		if err := json.NewEncoder(buf).Encode(w); err != nil {
			return nil, err
		}
		out := buf.Bytes()
		return out[:len(out)-1], nil // Encode's newline
	}
	size := len(prompt) + len(tools) + 1024
	for _, m := range req.Messages[min(1, len(req.Messages)):] {
		size += len(m.Content) + len(m.Content)/8 + 64 // escapes and the message's own members
	}
	buf.Grow(size)
	if err := json.NewEncoder(buf).Encode(w); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	out = out[:len(out)-2] // the closing brace and Encode's newline
	if prompt != nil {
		i := bytes.Index(out, promptMarkerJSON)
		if i < 0 {
			return nil, errMarkerLost
		}
		n, delta := len(out), len(prompt)-len(promptMarkerJSON)
		out = slices.Grow(out, delta)[:n+delta] // in place: the buffer was sized for it
		copy(out[i+len(prompt):], out[i+len(promptMarkerJSON):n])
		copy(out[i:], prompt)
	}
	if tools != nil {
		out = append(append(out, `,"tools":`...), tools...)
	}
	return append(out, '}'), nil
}
