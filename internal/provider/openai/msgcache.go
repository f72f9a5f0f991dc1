package openai

import (
	"encoding/json"
	"hash/maphash"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// maxMessageCache bounds the message cache: the bytes of the encodings and
// of the texts they were made from (kept alive by it). Full, it starts
// over.
const maxMessageCache = 4 << 20

// msgCache keeps the JSON of conversation messages. A conversation is
// sent whole on every model call, so without it each turn escapes the
// whole history (and the system prompt) again; with it, a turn encodes
// only its new messages. Entries are keyed by a hash of the message and
// hold the message itself: a hit is used only when the message is equal,
// never on a hash collision alone.
type msgCache struct {
	mu   sync.Mutex
	seed maphash.Seed
	m    map[uint64]msgEntry
	size int
}

type msgEntry struct {
	role, content, callID string
	enc                   []byte
}

// appendMessage appends m's JSON: plain messages (text content, no tool
// calls, no attachments) through the cache, the others encoded as they
// are.
func (mc *msgCache) appendMessage(out []byte, m beamclaw.Message) ([]byte, error) {
	plain := len(m.ToolCalls) == 0 && (m.Role != beamclaw.RoleUser || len(m.Attachments) == 0)
	if !plain {
		b, err := json.Marshal(encodeMessage(m))
		return append(out, b...), err
	}
	callID := ""
	if m.Role == beamclaw.RoleTool {
		callID = m.ToolCallID // encodeMessage sends it for tool results only
	}
	return mc.appendSimple(out, m.Role, m.Content, callID)
}

// appendSimple appends the JSON of a message of role, text content and
// (tool results) call id.
func (mc *msgCache) appendSimple(out []byte, role beamclaw.Role, content, callID string) ([]byte, error) {
	mc.mu.Lock()
	if mc.m == nil {
		mc.seed, mc.m = maphash.MakeSeed(), make(map[uint64]msgEntry)
	}
	seed := mc.seed
	mc.mu.Unlock()
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(string(role))
	h.WriteByte(0)
	h.WriteString(callID)
	h.WriteByte(0)
	h.WriteString(content)
	key := h.Sum64()

	mc.mu.Lock()
	e, ok := mc.m[key]
	mc.mu.Unlock()
	if ok && e.role == string(role) && e.callID == callID && e.content == content {
		return append(out, e.enc...), nil
	}
	enc, err := json.Marshal(wireMessage{Role: string(role), Content: content, ToolCallID: callID})
	if err != nil {
		return out, err
	}
	cost := len(enc) + len(content)
	mc.mu.Lock()
	if mc.size+cost > maxMessageCache {
		clear(mc.m)
		mc.size = 0
	}
	if cost <= maxMessageCache {
		if old, had := mc.m[key]; had {
			mc.size -= len(old.enc) + len(old.content)
		}
		mc.m[key] = msgEntry{role: string(role), content: content, callID: callID, enc: enc}
		mc.size += cost
	}
	mc.mu.Unlock()
	return append(out, enc...), nil
}
