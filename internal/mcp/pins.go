package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
)

// PinStore persists the definition hash of each approved MCP tool, keyed
// by exposed tool name. The daemon backs it with bbolt; MemPinStore keeps
// pins in memory.
type PinStore interface {
	Get(key string) (hash string, ok bool, err error)
	Put(key, hash string) error
	Delete(key string) error
}

// MemPinStore is a PinStore in memory, safe for concurrent use.
type MemPinStore struct {
	mu   sync.Mutex
	pins map[string]string
}

var _ PinStore = (*MemPinStore)(nil)

// NewMemPinStore returns an empty MemPinStore.
func NewMemPinStore() *MemPinStore { return &MemPinStore{pins: map[string]string{}} }

// Get returns the pinned hash of key.
func (s *MemPinStore) Get(key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.pins[key]
	return h, ok, nil
}

// Put pins hash under key.
func (s *MemPinStore) Put(key, hash string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pins[key] = hash
	return nil
}

// Delete drops the pin of key.
func (s *MemPinStore) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pins, key)
	return nil
}

// DefinitionHash is the hex SHA-256 of a tool's canonical definition: the
// JSON object {"description","inputSchema","name"} with the schema
// re-encoded with sorted keys and no insignificant space, so formatting
// and key order do not matter but any change of meaning does.
func DefinitionHash(name, description string, schema json.RawMessage) string {
	canon, err := canonicalJSON(schema)
	if err != nil {
		// Not JSON: hash the bytes as given; any change still shows.
		canon = append([]byte("raw:"), schema...)
	}
	def := struct {
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Name        string          `json:"name"`
	}{description, canon, name}
	b, err := json.Marshal(def)
	if err != nil {
		b = fmt.Appendf(nil, "%q\x00%q\x00%s", name, description, canon)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func canonicalJSON(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func shaHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
