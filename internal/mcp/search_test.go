package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestLargeToolSetDefersToToolSearch(t *testing.T) {
	m := run(t, Options{Servers: []ServerConfig{fixture("fx", "-extra-tools", "50")}, MaxInlineTools: 10})
	waitReady(t, m, "fx")

	if diff := cmp.Diff([]string{"tool_search"}, toolNames(m.ToolsFor("alpha"))); diff != "" {
		t.Fatalf("ToolsFor before search (-want +got):\n%s", diff)
	}
	catalog := m.Catalog()
	if !strings.Contains(catalog, "fx__echo — Echoes the message back.\n") || strings.Count(catalog, "\n") != len(fixtureTools)+50+1 {
		t.Errorf("Catalog =\n%s", catalog)
	}
	if _, ok := m.Lookup("fx__add"); !ok {
		t.Error("Lookup cannot find a deferred tool")
	}

	search, _ := m.Lookup("tool_search")
	if s := search.Spec(); s.RequiresApproval || s.MinAutonomy != beamclaw.ReadOnly {
		t.Errorf("tool_search spec = %+v", s)
	}
	out, err := search.Execute(context.Background(), beamclaw.Invocation{AgentID: "alpha", Args: []byte(`{"query":"echo","limit":1}`)})
	if err != nil {
		t.Fatalf("tool_search: %v", err)
	}
	var res searchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("decode %s: %v", out, err)
	}
	if len(res.Tools) == 0 || res.Tools[0].Name != "fx__echo" || !strings.Contains(string(res.Tools[0].Parameters), "message") {
		t.Fatalf("tool_search result = %s", out)
	}
	if diff := cmp.Diff([]string{"tool_search", "fx__echo"}, toolNames(m.ToolsFor("alpha"))); diff != "" {
		t.Errorf("ToolsFor after search (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tool_search"}, toolNames(m.ToolsFor("beta"))); diff != "" {
		t.Errorf("another agent's list changed (-want +got):\n%s", diff)
	}
	if _, err := search.Execute(context.Background(), beamclaw.Invocation{Args: []byte(`{"query":" "}`)}); err == nil {
		t.Error("empty query accepted")
	}
}

func TestInlineWhenFewTools(t *testing.T) {
	m := run(t, Options{Servers: []ServerConfig{fixture("fx")}})
	waitReady(t, m, "fx")
	if m.Catalog() != "" {
		t.Error("Catalog is not empty with every tool inline")
	}
	if len(m.Tools()) != len(fixtureTools) {
		t.Errorf("Tools() = %v", toolNames(m.Tools()))
	}
}
