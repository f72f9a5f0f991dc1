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

// get returns the encoding stored under key, or encodes v and stores it.
func (ec *encCache) get(key uint64, v any) ([]byte, error) {
	ec.mu.Lock()
	b, ok := ec.enc[key]
	ec.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := json.Marshal(v)
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

// hash starts a hash of content to key the cache ('t' tools, 's' a prompt).
func (ec *encCache) hash(kind byte) *maphash.Hash {
	ec.mu.Lock()
	if ec.enc == nil {
		ec.seed, ec.enc = maphash.MakeSeed(), make(map[uint64][]byte)
	}
	seed := ec.seed
	ec.mu.Unlock()
	h := new(maphash.Hash)
	h.SetSeed(seed)
	h.WriteByte(kind)
	return h
}

// tools returns the JSON array of wire, the wire form of defs.
func (ec *encCache) tools(defs []beamclaw.ToolDef, wire []wireTool) ([]byte, error) {
	h := ec.hash('t')
	for _, d := range defs {
		h.WriteString(d.Name)
		h.WriteByte(0)
		h.WriteString(d.Description)
		h.WriteByte(0)
		h.Write(d.Parameters)
		h.WriteByte(0)
	}
	return ec.get(h.Sum64(), wire)
}

// prompt returns the JSON string of a system prompt.
func (ec *encCache) prompt(s string) ([]byte, error) {
	h := ec.hash('s')
	h.WriteString(s)
	return ec.get(h.Sum64(), s)
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
	w := encodeChat(req, model, c.maxCompletion)
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
	if len(w.Tools) > 0 {
		if tools, err = c.t.enc.tools(req.Tools, w.Tools); err != nil {
			return nil, err
		}
		w.Tools = nil
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
