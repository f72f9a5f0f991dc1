package tool_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// perAgent is an AgentSource: tool "b__x" only for agent "bob".
type perAgent struct{ all []beamclaw.Tool }

func (s *perAgent) Tools() []beamclaw.Tool { return s.all }

func (s *perAgent) ToolsFor(agent string) []beamclaw.Tool {
	if agent == "bob" {
		return s.all
	}
	return s.all[:1]
}

func (s *perAgent) LookupFor(agent, name string) (beamclaw.Tool, bool) {
	for _, t := range s.ToolsFor(agent) {
		if t.Spec().Def.Name == name {
			return t, true
		}
	}
	return nil, false
}

func TestAgentSourceFiltersByAgent(t *testing.T) {
	r := tool.New(tool.Options{})
	r.AddSource("mcp", &perAgent{all: []beamclaw.Tool{echo("a__x"), echo("b__x")}})
	names := func(agent string) []string {
		var out []string
		for _, s := range r.Specs(agent) {
			out = append(out, s.Def.Name)
		}
		return out
	}
	if got := names("ana"); !slices.Equal(got, []string{"a__x"}) {
		t.Errorf("ana sees %v", got)
	}
	if got := names("bob"); !slices.Equal(got, []string{"a__x", "b__x"}) {
		t.Errorf("bob sees %v", got)
	}
	bx, ok := r.Lookup("b__x")
	if !ok {
		t.Fatal("b__x not found")
	}
	res := r.Run(context.Background(), bx, beamclaw.Invocation{AgentID: "ana", Args: []byte(`{"text":"hi"}`)})
	if !res.IsError || !strings.Contains(res.Content, "not enabled for agent ana") {
		t.Errorf("ana ran bob's tool: %+v", res)
	}
	res = r.Run(context.Background(), bx, beamclaw.Invocation{AgentID: "bob", Args: []byte(`{"text":"hi"}`)})
	if res.IsError || res.Content != "hi" {
		t.Errorf("bob's call: %+v", res)
	}
}
