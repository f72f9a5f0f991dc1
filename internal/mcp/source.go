package mcp

import (
	"sort"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Tools is the tool source the registry reads: every tool of every ready
// server, whatever its agents filter (use ToolsFor to apply it). With more
// tools than MaxInlineTools it returns only the tools earlier searches
// made callable; the others are DeferredFor (see the package doc).
func (m *Manager) Tools() []beamclaw.Tool { return m.ToolsFor("") }

// ToolsFor is Tools restricted to the servers agent may use; "" means any
// agent.
func (m *Manager) ToolsFor(agent string) []beamclaw.Tool {
	all := m.available(agent)
	if !m.deferred(len(all)) {
		out := make([]beamclaw.Tool, 0, len(all))
		for _, t := range all {
			out = append(out, t)
		}
		return out
	}
	var out []beamclaw.Tool
	for _, name := range m.activatedFor(agent) {
		for _, t := range all {
			if t.name == name {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// DeferredFor is the tool.Deferrer of the registry's tool_search: every
// tool agent may use when there are more than MaxInlineTools, else none.
func (m *Manager) DeferredFor(agent string) []beamclaw.Tool {
	all := m.available(agent)
	if !m.deferred(len(all)) {
		return nil
	}
	out := make([]beamclaw.Tool, 0, len(all))
	for _, t := range all {
		out = append(out, t)
	}
	return out
}

// Activate makes names, found by tool_search, inline for agent.
func (m *Manager) Activate(agent string, names []string) { m.activate(agent, names) }

// Lookup finds any tool of a ready server by exposed name, inline or not;
// the registry uses it to run a tool the model named after a search.
func (m *Manager) Lookup(name string) (beamclaw.Tool, bool) { return m.LookupFor("", name) }

// Tool is Lookup for the registry (tool.Finder): a tool disabled because
// its definition changed is still found, so a call of it is answered with
// the reason rather than "unknown tool".
func (m *Manager) Tool(name string) (beamclaw.Tool, bool) { return m.Lookup(name) }

// LookupFor is Lookup restricted to the servers agent may use.
func (m *Manager) LookupFor(agent, name string) (beamclaw.Tool, bool) {
	t, ok := m.lookup(agent, name)
	if !ok {
		return nil, false
	}
	return t, true
}

func (m *Manager) lookup(agent, name string) (*mcpTool, bool) {
	for _, s := range m.servers {
		if !s.allows(agent) {
			continue
		}
		if t, ok := s.tool(name); ok {
			return t, true
		}
	}
	return nil, false
}

// deferred reports whether n tools are too many to send inline.
func (m *Manager) deferred(n int) bool {
	return m.opts.MaxInlineTools >= 0 && n > m.opts.MaxInlineTools
}

// available is every enabled tool of the ready servers agent may use, by
// name. A tool whose definition changed since its pin is left out: its
// new description never reaches a model until the user accepts it.
func (m *Manager) available(agent string) []*mcpTool {
	var all []*mcpTool
	for _, s := range m.servers {
		if !s.allows(agent) {
			continue
		}
		for _, t := range s.readyTools() {
			if !m.Changed(t.name) {
				all = append(all, t)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	return all
}

// activate makes names inline for agent, keeping at most MaxInlineTools
// (the most recently found).
func (m *Manager) activate(agent string, names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.activated[agent]
	for _, n := range names {
		for i, have := range list {
			if have == n {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		list = append(list, n)
	}
	if limit := max(m.opts.MaxInlineTools, 1); len(list) > limit {
		list = list[len(list)-limit:]
	}
	m.activated[agent] = list
}

func (m *Manager) activatedFor(agent string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.activated[agent]...)
}
