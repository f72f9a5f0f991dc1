package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// named is a tool with a name and a description, doing nothing.
type named struct{ name, desc string }

func (n named) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: n.name, Description: n.desc,
		Parameters: json.RawMessage(`{"type":"object"}`)}, MinAutonomy: beamclaw.ReadOnly}
}
func (n named) Execute(context.Context, beamclaw.Invocation) (string, error) {
	return n.name + " ran", nil
}

func specNames(specs []beamclaw.ToolSpec) []string {
	out := make([]string, 0, len(specs))
	for _, s := range specs {
		out = append(out, s.Def.Name)
	}
	return out
}

// An agent with an inline list gets those tools and tool_search; the
// others are in its catalog, runnable by name, and inline after a search
// found them. An agent without a list gets every tool.
func TestDeferredRegisteredTools(t *testing.T) {
	r := New(Options{Inline: func(agent, name string) bool { return agent != "lean" || name == "read_file" }})
	for _, tl := range []named{{"read_file", "Read a file."}, {"jq", "Run a jq filter over JSON."}, {"terminal", "Run one program."}} {
		if err := r.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"read_file", "tool_search"}, specNames(r.Specs("lean"))); diff != "" {
		t.Errorf("lean's tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"jq", "read_file", "terminal"}, specNames(r.Specs("full"))); diff != "" {
		t.Errorf("full's tools (-want +got):\n%s", diff)
	}
	want := "\n# More tools\n\nGet their schemas with tool_search.\n- jq: Run a jq filter over JSON.\n- terminal: Run one program.\n"
	if got := r.Catalog("lean"); got != want {
		t.Errorf("catalog %q, want %q", got, want)
	}
	if got := r.Catalog("full"); got != "" {
		t.Errorf("full's catalog %q, want none", got)
	}
	search, ok := r.Lookup(SearchToolName)
	if !ok {
		t.Fatal("tool_search is not found")
	}
	res := r.Run(context.Background(), search, beamclaw.Invocation{AgentID: "lean", Args: json.RawMessage(`{"query":"json"}`)})
	if res.IsError || !strings.Contains(res.Content, `"name":"jq"`) || strings.Contains(res.Content, "terminal") {
		t.Fatalf("search answered %s", res.Content)
	}
	if diff := cmp.Diff([]string{"jq", "read_file", "tool_search"}, specNames(r.Specs("lean"))); diff != "" {
		t.Errorf("lean's tools after the search (-want +got):\n%s", diff)
	}
	if got := r.Catalog("lean"); got != want {
		t.Errorf("the catalog changed after a search: %q", got)
	}
	term, _ := r.Lookup("terminal")
	if res := r.Run(context.Background(), term, beamclaw.Invocation{AgentID: "lean", Args: json.RawMessage(`{}`)}); res.Content != "terminal ran" {
		t.Errorf("a deferred tool called by name answered %q", res.Content)
	}
	if res := r.Run(context.Background(), search, beamclaw.Invocation{AgentID: "lean", Args: json.RawMessage(`{"limit":2}`)}); !res.IsError {
		t.Errorf("a search without a query answered %q", res.Content)
	}
}

func TestRankAndOneLine(t *testing.T) {
	tools := []beamclaw.Tool{named{"s__read_file", "Read a file from disk"}, named{"s__write_file", "Write a file"},
		named{"s__search", "Search the web for files"}}
	if diff := cmp.Diff([]string{"s__read_file", "s__write_file", "s__search"}, specNames(specsOf(rank(tools, "read file", 5)))); diff != "" {
		t.Errorf("rank (-want +got):\n%s", diff)
	}
	if got := rank(tools, "s__search", 1); len(got) != 1 || got[0].Spec().Def.Name != "s__search" {
		t.Errorf("exact name rank = %v", got)
	}
	if got := oneLine("first line\nsecond", 120); got != "first line" {
		t.Errorf("oneLine = %q", got)
	}
	if got := oneLine(strings.Repeat("é", 10), 5); got != "éééé…" {
		t.Errorf("oneLine cut = %q", got)
	}
}

func specsOf(tools []beamclaw.Tool) []beamclaw.ToolSpec {
	out := make([]beamclaw.ToolSpec, 0, len(tools))
	for _, t := range tools {
		out = append(out, t.Spec())
	}
	return out
}

// Searches keep at most activatedMax tools inline per agent, the most
// recently found.
func TestSearchesKeepTheMostRecentInline(t *testing.T) {
	r := New(Options{Inline: func(string, string) bool { return false }})
	for i := range activatedMax + 2 {
		if err := r.Register(named{fmt.Sprintf("t%02d", i), "a tool"}); err != nil {
			t.Fatal(err)
		}
	}
	search, _ := r.Lookup(SearchToolName)
	for i := range activatedMax + 2 {
		res := r.Run(context.Background(), search, beamclaw.Invocation{AgentID: "a",
			Args: json.RawMessage(fmt.Sprintf(`{"query":"t%02d"}`, i))})
		if res.IsError {
			t.Fatal(res.Content)
		}
	}
	got := specNames(r.Specs("a"))
	if len(got) != activatedMax+1 || got[0] != "t02" || got[activatedMax-1] != fmt.Sprintf("t%02d", activatedMax+1) {
		t.Errorf("inline after %d searches: %v, want t02..t%02d and tool_search", activatedMax+2, got, activatedMax+1)
	}
}
