package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// State is the life-cycle state of one server.
type State string

// Server states.
const (
	StateStarting   State = "starting"    // first connect and handshake
	StateReady      State = "ready"       // connected; its tools are offered
	StateRestarting State = "restarting"  // lost; waiting for backoff or reconnecting
	StateNeedsLogin State = "needs_login" // the server refused us (401/403): `beamclaw mcp login NAME`; not retried until then
	StateFailed     State = "failed"      // restart budget used up; not retried
	StateDisabled   State = "disabled"    // enabled: false in config
	StateStopped    State = "stopped"     // the supervisor stopped the service
)

// ServerStatus is one server's line for `beamclaw mcp list` and /health.
type ServerStatus struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	State     State    `json:"state"`
	Tools     int      `json:"tools"`
	Restarts  int      `json:"restarts"`
	LastError string   `json:"last_error,omitempty"`
	Changed   []string `json:"changed,omitempty"` // tools whose pinned definition changed
	// NeedsScope is the scope a call was refused for (403
	// insufficient_scope); the next login asks for it too.
	NeedsScope string `json:"needs_scope,omitempty"`
}

// ToolInfo describes one discovered tool (`beamclaw mcp tools`, Probe).
type ToolInfo struct {
	Name        string          `json:"name"`   // exposed name, <server>__<tool> sanitized
	Server      string          `json:"server"` // configured server name
	RemoteName  string          `json:"remote_name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Hash        string          `json:"hash"` // DefinitionHash
	Changed     bool            `json:"changed,omitempty"`
	Trusted     bool            `json:"trusted,omitempty"`
}

// Manager owns every configured MCP server: one suture service per enabled
// server (Services), the tool source the registry reads (Tools, ToolsFor,
// Lookup), definition pins, and status. Safe for concurrent use.
type Manager struct {
	opts    Options
	log     *slog.Logger
	servers []*server // config order

	mu        sync.Mutex
	changed   map[string]string   // exposed tool -> server: definition differs from its pin; disabled
	activated map[string][]string // agent -> tools made callable by tool_search, oldest first
}

// New validates the options and builds a Manager; nothing starts until the
// services run.
func New(opts Options) (*Manager, error) {
	opts = opts.withDefaults()
	var errs []error
	seen := map[string]bool{}
	for _, sc := range opts.Servers {
		if err := sc.Validate(); err != nil {
			errs = append(errs, err)
		}
		if seen[sc.Name] {
			errs = append(errs, fmt.Errorf("mcp server %q: duplicate name", sc.Name))
		}
		seen[sc.Name] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	m := &Manager{
		opts:      opts,
		log:       opts.Logger,
		changed:   map[string]string{},
		activated: map[string][]string{},
	}
	for _, sc := range opts.Servers {
		m.servers = append(m.servers, newServer(m, sc))
	}
	return m, nil
}

// Services returns one suture service per enabled server, for the daemon
// to add to its MCP supervisor. Each returns a restartable error when its
// connection breaks and an error wrapping suture.ErrDoNotRestart once its
// restart budget is used up.
func (m *Manager) Services() []suture.Service {
	var out []suture.Service
	for _, s := range m.servers {
		if s.cfg.Enabled {
			out = append(out, s)
		}
	}
	return out
}

// Status reports every configured server, in config order.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		st := s.status()
		st.Changed = m.changedOf(s.cfg.Name)
		out = append(out, st)
	}
	return out
}

// ToolInfos lists the tools of ready servers (of one server when server
// is not empty), sorted by exposed name.
func (m *Manager) ToolInfos(server string) []ToolInfo {
	var out []ToolInfo
	for _, s := range m.servers {
		if server != "" && s.cfg.Name != server {
			continue
		}
		for _, t := range s.readyTools() {
			info := t.info()
			info.Changed = m.Changed(t.name)
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (m *Manager) emit(name beamclaw.EventName, attrs ...slog.Attr) {
	m.opts.Emit(beamclaw.Event{Name: name, Time: m.opts.Clock.Now(), Attrs: attrs})
}
