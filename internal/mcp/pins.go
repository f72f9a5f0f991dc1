package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// PinBucket is the bbolt bucket the daemon keeps pins in (a store.KV).
const PinBucket = "mcp_pins"

// PinStore persists the definition hash of each approved MCP tool, keyed
// by exposed tool name (see the package doc, "Tool poisoning"). The daemon backs it with bbolt; MemPinStore keeps
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

// Pin records the current definition of tool (an exposed name) as
// approved and enables it if a change had disabled it. A tool is pinned
// at its first run (which, on a server that is not trusted, follows the
// user's approval); `beamclaw mcp accept` pins a changed one again.
func (m *Manager) Pin(tool string) error {
	t, ok := m.lookup("", tool)
	if !ok {
		return fmt.Errorf("pin %s: %w", tool, ErrUnknownTool)
	}
	return m.pin(t)
}

func (m *Manager) pin(t *mcpTool) error {
	if err := m.opts.Pins.Put(t.name, t.hash); err != nil {
		return fmt.Errorf("pin %s: %w", t.name, err)
	}
	m.mu.Lock()
	delete(m.changed, t.name)
	m.mu.Unlock()
	return nil
}

// Accept pins the current definition of a ready server's tool (its
// remote or exposed name) and enables it again: `beamclaw mcp accept
// SERVER TOOL` after reviewing a changed definition. It returns the
// exposed name.
func (m *Manager) Accept(server, tool string) (string, error) {
	for _, s := range m.servers {
		if s.cfg.Name != server {
			continue
		}
		for _, t := range s.readyTools() {
			if t.remote == tool || t.name == tool {
				return t.name, m.pin(t)
			}
		}
		_, state := s.current()
		if state != StateReady {
			return "", fmt.Errorf("mcp server %q is %s: %w", server, state, ErrNotConnected)
		}
		return "", fmt.Errorf("mcp server %q has no tool %q: %w", server, tool, ErrUnknownTool)
	}
	return "", fmt.Errorf("no mcp server %q: %w", server, ErrUnknownTool)
}

// Changed reports whether tool's definition differs from its pin; such a
// tool is disabled until it is accepted.
func (m *Manager) Changed(tool string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.changed[tool]
	return ok
}

func (m *Manager) changedOf(server string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for tool, srv := range m.changed {
		if srv == server {
			out = append(out, tool)
		}
	}
	slices.Sort(out)
	return out
}

// checkPin compares a freshly discovered definition with its pin. A
// mismatch disables the tool (the pin is kept, so a restart finds the
// same mismatch) and, the first time it is seen, emits mcp_tool_changed.
// A definition that matches its pin again is enabled.
func (m *Manager) checkPin(t *mcpTool) {
	pinned, ok, err := m.opts.Pins.Get(t.name)
	if err != nil {
		m.log.Warn("mcp pin lookup failed", "server", t.srv.cfg.Name, "tool", t.name, "err", err)
		return
	}
	m.mu.Lock()
	_, was := m.changed[t.name]
	if !ok || pinned == t.hash {
		delete(m.changed, t.name)
		m.mu.Unlock()
		return
	}
	m.changed[t.name] = t.srv.cfg.Name
	m.mu.Unlock()
	if was {
		return
	}
	m.log.Warn("mcp tool definition changed since it was approved; the tool is disabled until `beamclaw mcp accept`",
		"server", t.srv.cfg.Name, "tool", t.remote)
	m.emit(beamclaw.EventMCPToolChanged,
		slog.String("server", t.srv.cfg.Name),
		slog.String("tool", t.name),
		slog.String("pinned_hash", pinned),
		slog.String("hash", t.hash))
}

// pinOnUse pins t at its first run; a tool already pinned is left alone.
func (m *Manager) pinOnUse(t *mcpTool) error {
	_, ok, err := m.opts.Pins.Get(t.name)
	if err != nil {
		return fmt.Errorf("read pin of %s: %w", t.name, err)
	}
	if ok {
		return nil
	}
	return m.pin(t)
}
