package sandbox

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// Search limits.
const (
	defaultSearchLimit = 20
	maxSearchLimit     = 200
)

// toolSummary is a search hit.
type toolSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source,omitempty"`
}

// toolDetail is get_tool's answer.
type toolDetail struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Source      string          `json:"source,omitempty"`
	Schema      json.RawMessage `json:"schema"`
}

// callResult is call_tool's answer.
type callResult struct {
	Content string `json:"content"`
}

// searchTools ranks the run's allowed tools against query's words: a word
// in the name counts 3, in the description 1; every word must match. An
// empty query lists them all by name.
func (m *Manager) searchTools(r *run, query string, limit int) (any, *rpcError) {
	if r.toolsErr != nil {
		return nil, &rpcError{rpcToolFailed, "the session's tools could not be listed"}
	}
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		t     ToolInfo
		score int
	}
	var hits []hit
	for _, t := range m.allowed(r.tools) {
		name, desc := strings.ToLower(t.Name), strings.ToLower(t.Description)
		score := 0
		for _, w := range words {
			switch {
			case strings.Contains(name, w):
				score += 3
			case strings.Contains(desc, w):
				score++
			default:
				score = -1
			}
			if score < 0 {
				break
			}
		}
		if score >= 0 {
			hits = append(hits, hit{t, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].t.Name < hits[j].t.Name
	})
	out := make([]toolSummary, 0, min(len(hits), limit))
	for _, h := range hits[:min(len(hits), limit)] {
		out = append(out, toolSummary{h.t.Name, h.t.Description, h.t.Source})
	}
	return out, nil
}

// lookup finds name among the run's tools and applies the policy.
func (m *Manager) lookup(r *run, name string) (ToolInfo, *rpcError) {
	if r.toolsErr != nil {
		return ToolInfo{}, &rpcError{rpcToolFailed, "the session's tools could not be listed"}
	}
	for _, t := range r.tools {
		if t.Name != name {
			continue
		}
		if ok, why := m.policy.Allows(t); !ok {
			return ToolInfo{}, &rpcError{rpcDenied, why}
		}
		return t, nil
	}
	if ok, why := m.policy.Allows(ToolInfo{Name: name}); !ok {
		return ToolInfo{}, &rpcError{rpcDenied, why}
	}
	return ToolInfo{}, &rpcError{rpcNoTool, "no tool named " + name + " (see /tools/index.txt or search_tools)"}
}

func (m *Manager) getTool(r *run, name string) (any, *rpcError) {
	t, rerr := m.lookup(r, name)
	if rerr != nil {
		return nil, rerr
	}
	schema := t.Schema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return toolDetail{t.Name, t.Description, t.Source, schema}, nil
}

// callTool runs a tool for the run's caller: tokens in the arguments are
// restored first (the tool sees real values), and the output is scrubbed
// and, when results are tokenized, tokenized before the script sees it.
func (m *Manager) callTool(r *run, name string, args json.RawMessage) (any, *rpcError) {
	if _, rerr := m.lookup(r, name); rerr != nil {
		return nil, rerr
	}
	if m.opts.Tools == nil {
		return nil, &rpcError{rpcNoTool, "no tools are available to the sandbox"}
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return nil, &rpcError{rpcInvalidParams, "arguments must be a JSON object"}
	}
	if r.tok != nil {
		restored, err := r.tok.DetokenizeJSON(args)
		if err != nil {
			return nil, &rpcError{rpcInvalidParams, "arguments must be a JSON object"}
		}
		args = restored
	}
	out, err := m.opts.Tools.Call(r.ctx, r.caller, name, args)
	if err != nil {
		return nil, &rpcError{rpcToolFailed, m.inbound(r, err.Error())}
	}
	return callResult{Content: m.inbound(r, out)}, nil
}

// inbound cleans text entering the container.
func (m *Manager) inbound(r *run, s string) string {
	s = m.opts.Scrub(s)
	if r.tok != nil && m.opts.PII.TokenizeResults {
		s = r.tok.Tokenize(s)
	}
	return s
}
