package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// SearchToolName is the meta-tool offered when some of an agent's tools
// are deferred: it returns the schemas of the deferred tools that match
// a query and makes them callable from the next model request on.
const SearchToolName = "tool_search"

const (
	searchDefaultLimit = 5
	searchMaxLimit     = 20
	// activatedMax bounds the tools searches keep inline per agent (the
	// most recently found).
	activatedMax = 16
)

// Deferrer is an optional interface of a Source that holds some of its
// tools back from the model (an MCP source with more tools than it sends
// inline): DeferredFor lists them for agentID (searchable through
// tool_search, callable by name once found) and Activate makes the named
// ones inline for the agent.
type Deferrer interface {
	DeferredFor(agentID string) []beamclaw.Tool
	Activate(agentID string, names []string)
}

// searchTool is tool_search: it ranks an agent's deferred tools.
type searchTool struct{ r *Registry }

var _ beamclaw.Tool = searchTool{}

var searchSpec = beamclaw.ToolSpec{
	Def: beamclaw.ToolDef{
		Name:        SearchToolName,
		Description: "Get schemas of tools under # More tools by keyword or name; then call them.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":20}},"required":["query"],"additionalProperties":false}`),
		Source: "builtin",
	},
	MinAutonomy: beamclaw.ReadOnly,
	Risk:        beamclaw.RiskLow,
}

func (searchTool) Spec() beamclaw.ToolSpec { return searchSpec }

type searchHit struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type searchResult struct {
	Tools []searchHit `json:"tools"`
	Note  string      `json:"note"`
}

// Execute returns the best matches' definitions and makes them inline
// for the agent.
func (s searchTool) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	var args struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if len(inv.Args) > 0 {
		if err := json.Unmarshal(inv.Args, &args); err != nil {
			return "", beamclaw.E("tool.tool_search", beamclaw.KindInvalid, `arguments must be {"query": string, "limit": integer}`, err)
		}
	}
	if strings.TrimSpace(args.Query) == "" {
		return "", beamclaw.E("tool.tool_search", beamclaw.KindInvalid, "query is required", nil)
	}
	limit := args.Limit
	if limit <= 0 {
		limit = searchDefaultLimit
	}
	found := rank(s.r.deferred(inv.AgentID), args.Query, min(limit, searchMaxLimit))
	res := searchResult{Tools: make([]searchHit, 0, len(found))}
	for _, t := range found {
		d := t.Spec().Def
		res.Tools = append(res.Tools, searchHit{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
	}
	if len(found) == 0 {
		res.Note = "No tool matched; try other keywords."
	} else {
		res.Note = "These tools can now be called by name."
		s.r.activate(inv.AgentID, found)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return "", fmt.Errorf("tool_search: encode: %w", err)
	}
	return string(b), nil
}

// rank scores each tool: an exact name match wins; otherwise each query
// word found in the name counts 3 and in the description 1. Ties go by
// name.
func rank(tools []beamclaw.Tool, query string, limit int) []beamclaw.Tool {
	q := strings.ToLower(strings.TrimSpace(query))
	words := strings.FieldsFunc(q, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > utf8.RuneSelf)
	})
	type scored struct {
		t     beamclaw.Tool
		name  string
		score int
	}
	var hits []scored
	for _, t := range tools {
		d := t.Spec().Def
		name, desc := strings.ToLower(d.Name), strings.ToLower(d.Description)
		score := 0
		if name == q {
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
			hits = append(hits, scored{t, d.Name, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]beamclaw.Tool, 0, min(limit, len(hits)))
	for i := 0; i < len(hits) && i < limit; i++ {
		out = append(out, hits[i].t)
	}
	return out
}

// Catalog is the system-prompt section listing agentID's deferred tools,
// one "name: first line of its description" each, sorted; "" when every
// tool is inline. It lists a tool whether or not a search found it, so
// it changes only when the tools do.
func (r *Registry) Catalog(agentID string) string {
	all := r.deferred(agentID)
	if len(all) == 0 {
		return ""
	}
	names := make([]string, 0, len(all))
	for _, t := range all {
		d := t.Spec().Def
		names = append(names, d.Name+": "+oneLine(d.Description, 100))
	}
	slices.Sort(names)
	return "\n# More tools\n\nGet their schemas with tool_search.\n" + "- " + strings.Join(names, "\n- ") + "\n"
}

// oneLine is the first line of s, cut to at most n runes.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
