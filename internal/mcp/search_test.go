package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func specNames(specs []beamclaw.ToolSpec) []string {
	out := make([]string, 0, len(specs))
	for _, s := range specs {
		out = append(out, s.Def.Name)
	}
	return out
}

// More MCP tools than max_inline_tools: the registry offers tool_search
// and lists them in its catalog; a search makes the found tool inline for
// the agent that searched, not for another.
func TestLargeToolSetDefersToToolSearch(t *testing.T) {
	m := run(t, Options{Servers: []ServerConfig{fixture("fx", "-extra-tools", "50")}, MaxInlineTools: 10})
	waitReady(t, m, "fx")
	reg := tool.New(tool.Options{})
	reg.AddSource("mcp", m)

	if diff := cmp.Diff([]string{"tool_search"}, specNames(reg.Specs("alpha"))); diff != "" {
		t.Fatalf("Specs before search (-want +got):\n%s", diff)
	}
	catalog := reg.Catalog("alpha")
	if !strings.Contains(catalog, "- fx__echo: Echoes the message back.\n") || strings.Count(catalog, "\n- ") != len(fixtureTools)+50 {
		t.Errorf("Catalog =\n%s", catalog)
	}
	if _, ok := reg.Lookup("fx__add"); !ok {
		t.Error("Lookup cannot find a deferred tool")
	}
	search, _ := reg.Lookup("tool_search")
	if s := search.Spec(); s.RequiresApproval || s.MinAutonomy != beamclaw.ReadOnly {
		t.Errorf("tool_search spec = %+v", s)
	}
	res := reg.Run(context.Background(), search, beamclaw.Invocation{AgentID: "alpha", Args: []byte(`{"query":"echo","limit":1}`)})
	var out struct {
		Tools []struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil || res.IsError {
		t.Fatalf("tool_search answered %q (%v)", res.Content, err)
	}
	if len(out.Tools) != 1 || out.Tools[0].Name != "fx__echo" || !strings.Contains(string(out.Tools[0].Parameters), "message") {
		t.Fatalf("tool_search result = %s", res.Content)
	}
	if diff := cmp.Diff([]string{"fx__echo", "tool_search"}, specNames(reg.Specs("alpha"))); diff != "" {
		t.Errorf("Specs after search (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tool_search"}, specNames(reg.Specs("beta"))); diff != "" {
		t.Errorf("another agent's list changed (-want +got):\n%s", diff)
	}
	if res := reg.Run(context.Background(), search, beamclaw.Invocation{Args: []byte(`{"query":" "}`)}); !res.IsError {
		t.Error("empty query accepted")
	}
}

func TestInlineWhenFewTools(t *testing.T) {
	m := run(t, Options{Servers: []ServerConfig{fixture("fx")}})
	waitReady(t, m, "fx")
	reg := tool.New(tool.Options{})
	reg.AddSource("mcp", m)
	if c := reg.Catalog(""); c != "" {
		t.Errorf("Catalog is %q with every tool inline", c)
	}
	if len(m.Tools()) != len(fixtureTools) || len(m.DeferredFor("")) != 0 {
		t.Errorf("Tools() = %v", toolNames(m.Tools()))
	}
}
