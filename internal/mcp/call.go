package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// CallResult is one tools/call as `beamclaw mcp call` shows it: the text
// a model would get (images and other parts summarised), the structured
// content, and the questions the server asked that nobody answered.
type CallResult struct {
	Tool       string          // exposed name
	Text       string          // FormatResult
	Structured json.RawMessage // structuredContent, when the server gave one
	IsError    bool
	Notes      []string
}

// Call runs one tool of a ready server (its remote or exposed name) with
// the checks an agent's call gets: a changed definition is refused, the
// first run pins it. The Asker of ctx answers the server's elicitations.
func (m *Manager) Call(ctx context.Context, server, tool string, args json.RawMessage) (CallResult, error) {
	var t *mcpTool
	for _, s := range m.servers {
		if s.cfg.Name != server {
			continue
		}
		for _, cand := range s.readyTools() {
			if cand.remote == tool || cand.name == tool {
				t = cand
			}
		}
		if t == nil {
			if _, st := s.current(); st != StateReady {
				return CallResult{}, fmt.Errorf("mcp server %q is %s: %w", server, st, ErrNotConnected)
			}
			return CallResult{}, fmt.Errorf("mcp server %q has no tool %q: %w", server, tool, ErrUnknownTool)
		}
	}
	if t == nil {
		return CallResult{}, fmt.Errorf("no mcp server %q: %w", server, ErrUnknownTool)
	}
	res, notes, err := t.call(ctx, args)
	if err != nil {
		return CallResult{Tool: t.name, Notes: notes}, err
	}
	out := CallResult{Tool: t.name, Text: FormatResult(res), IsError: res.IsError, Notes: notes}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.Structured = b
		}
	}
	return out, nil
}

// Wait blocks until server is in one of states (or ctx ends) and
// returns its status.
func (m *Manager) Wait(ctx context.Context, name string, states ...State) (ServerStatus, error) {
	var s *server
	for _, cand := range m.servers {
		if cand.cfg.Name == name {
			s = cand
		}
	}
	if s == nil {
		return ServerStatus{}, fmt.Errorf("no mcp server %q: %w", name, ErrUnknownTool)
	}
	for {
		s.mu.Lock()
		st, ch := s.state, s.changed
		s.mu.Unlock()
		if slices.Contains(states, st) {
			return m.statusOf(s), nil
		}
		select {
		case <-ctx.Done():
			return m.statusOf(s), ctx.Err()
		case <-ch:
		}
	}
}

func (m *Manager) statusOf(s *server) ServerStatus {
	st := s.status()
	st.Changed = m.changedOf(s.cfg.Name)
	return st
}

// allows reports whether agent may use this server's tools ("" = any).
func (s *server) allows(agent string) bool {
	if agent == "" || len(s.cfg.Agents) == 0 {
		return true
	}
	for _, a := range s.cfg.Agents {
		if a == agent {
			return true
		}
	}
	return false
}
