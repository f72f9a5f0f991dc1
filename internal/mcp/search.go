package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

const (
	searchToolName     = "tool_search"
	searchDefaultLimit = 5
	searchMaxLimit     = 20
)

// searchTool is the tool_search meta-tool offered instead of the full tool
// list when there are more MCP tools than MaxInlineTools.
type searchTool struct{ m *Manager }

var _ beamclaw.Tool = (*searchTool)(nil)

func (s *searchTool) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{
		Def: beamclaw.ToolDef{
			Name: searchToolName,
			Description: "Search the MCP tools listed in the system prompt by keywords. " +
				"Returns the full definitions (name, description, JSON Schema of parameters) of the best matches; " +
				"the returned tools can then be called by name.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"query":{"type":"string","description":"keywords or a tool name"},` +
				`"limit":{"type":"integer","minimum":1,"maximum":20,"description":"most results to return (default 5)"}},` +
				`"required":["query"],"additionalProperties":false}`),
			Source: "mcp",
		},
		RequiresApproval: false,
		MinAutonomy:      beamclaw.ReadOnly,
		Risk:             beamclaw.RiskLow,
	}
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

type searchHit struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type searchResult struct {
	Tools []searchHit `json:"tools"`
	Note  string      `json:"note"`
}

// Execute ranks the agent's tools against the query, returns the best
// matches' full definitions and makes them callable (inline) for the
// agent from the next model request on.
func (s *searchTool) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	var args searchArgs
	if len(inv.Args) > 0 {
		if err := json.Unmarshal(inv.Args, &args); err != nil {
			return "", beamclaw.E("mcp.tool_search", beamclaw.KindInvalid, "arguments must be {\"query\": string, \"limit\": integer}", err)
		}
	}
	if strings.TrimSpace(args.Query) == "" {
		return "", beamclaw.E("mcp.tool_search", beamclaw.KindInvalid, "query is required", nil)
	}
	limit := args.Limit
	if limit <= 0 {
		limit = searchDefaultLimit
	}
	limit = min(limit, searchMaxLimit)
	found := rank(s.m.available(inv.AgentID), args.Query, limit)
	res := searchResult{Tools: make([]searchHit, 0, len(found))}
	names := make([]string, 0, len(found))
	for _, t := range found {
		res.Tools = append(res.Tools, searchHit{Name: t.name, Description: t.description(), Parameters: t.parameters()})
		names = append(names, t.name)
	}
	if len(found) == 0 {
		res.Note = "No tool matched; try other keywords."
	} else {
		res.Note = "These tools can now be called by name."
		s.m.activate(inv.AgentID, names)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return "", fmt.Errorf("tool_search: encode: %w", err)
	}
	return string(b), nil
}

// rank scores each tool: an exact name match wins; otherwise each query
// word found in the name counts 3 and in the description 1.
func rank(tools []*mcpTool, query string, limit int) []*mcpTool {
	q := strings.ToLower(strings.TrimSpace(query))
	words := strings.FieldsFunc(q, func(r rune) bool { return !validNameRune(r) || r == '_' || r == '-' })
	type scored struct {
		t     *mcpTool
		score int
	}
	var hits []scored
	for _, t := range tools {
		name, desc := strings.ToLower(t.name), strings.ToLower(t.desc)
		score := 0
		if name == q || strings.ToLower(t.remote) == q {
			score += 100
		}
		for _, w := range words {
			if strings.Contains(name, w) {
				score += 3
			}
			if strings.Contains(desc, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, scored{t, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].t.name < hits[j].t.name
	})
	out := make([]*mcpTool, 0, min(limit, len(hits)))
	for i := 0; i < len(hits) && i < limit; i++ {
		out = append(out, hits[i].t)
	}
	return out
}
