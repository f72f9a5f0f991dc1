package loop

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// recordingProvider answers with scripted messages and keeps each request.
type recordingProvider struct {
	stepProvider
	reqs []beamclaw.ChatRequest
}

func (p *recordingProvider) Chat(ctx context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	p.reqs = append(p.reqs, req)
	return p.stepProvider.Chat(ctx, req, onText)
}

func newFunctionsEngine(t *testing.T, p beamclaw.Provider) *Engine {
	t.Helper()
	reg := tool.New(tool.Options{})
	if err := reg.Register(upper{}); err != nil {
		t.Fatal(err)
	}
	eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return p, "m", nil }, Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

var lookupFn = beamclaw.ToolDef{Name: "lookup", Description: "the client's", Parameters: json.RawMessage(`{"type":"object"}`),
	Source: beamclaw.SourceClient}

// A response calling the agent's tool and the client's function runs the
// agent's, stores both calls and that result, and ends the run with the
// client's call; tool_choice goes with the first model call only.
func TestRunStopsAtTheClientsFunction(t *testing.T) {
	p := &recordingProvider{stepProvider: stepProvider{resps: []beamclaw.Message{
		{Role: beamclaw.RoleAssistant, Content: "checking", ToolCalls: []beamclaw.ToolCall{
			{ID: "c1", Name: "upper", Args: json.RawMessage(`{"a":"b"}`)},
			{ID: "c2", Name: "lookup", Args: json.RawMessage(`{"q":"x"}`)}}},
	}}}
	eng := newFunctionsEngine(t, p)
	lane := &fakeLane{decision: beamclaw.Allow}
	route := &routeLog{}
	choice := json.RawMessage(`"required"`)
	err := eng.Run(context.Background(), Run{ID: "r1", SessionID: "s1", Channel: "tui", Autonomy: beamclaw.Full,
		History: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}, Route: route, Lane: lane,
		Functions: []beamclaw.ToolDef{lookupFn}, Sampling: &beamclaw.Sampling{ToolChoice: choice}})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, d := range p.reqs[0].Tools {
		names[d.Name] = d.Source
	}
	if names["upper"] == beamclaw.SourceClient || names["lookup"] != beamclaw.SourceClient {
		t.Errorf("tools offered %v, want the agent's upper and the client's lookup", names)
	}
	if string(p.reqs[0].Sampling.ToolChoice) != `"required"` {
		t.Errorf("first call's tool_choice %s", p.reqs[0].Sampling.ToolChoice)
	}
	last := route.evs[len(route.evs)-1]
	if last.Type != beamclaw.EvFinal || len(last.Calls) != 1 || last.Calls[0].ID != "c2" || last.Text != "checking" {
		t.Fatalf("last event %+v, want a final with the client's call c2", last)
	}
	if len(lane.commits) != 1 {
		t.Fatalf("commits %+v, want one", lane.commits)
	}
	c := lane.commits[0]
	if len(c) != 2 || len(c[0].ToolCalls) != 2 || c[1].ToolCallID != "c1" || c[1].Content != `{"A":"B"}` {
		t.Errorf("committed %+v, want both calls and the result of c1 only", c)
	}

	// The client's result continues the turn: tool_choice is not sent
	// again once a tool ran in the turn.
	p2 := &recordingProvider{stepProvider: stepProvider{resps: []beamclaw.Message{
		{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "c3", Name: "upper", Args: json.RawMessage(`{}`)}}},
		{Role: beamclaw.RoleAssistant, Content: "found it"},
	}}}
	eng = newFunctionsEngine(t, p2)
	route = &routeLog{}
	err = eng.Run(context.Background(), Run{ID: "r2", SessionID: "s1", Channel: "tui", Autonomy: beamclaw.Full,
		History: append([]beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}, append(c,
			beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: "c2", Content: "42"})...), Route: route, Lane: &fakeLane{decision: beamclaw.Allow},
		Functions: []beamclaw.ToolDef{lookupFn}, Sampling: &beamclaw.Sampling{ToolChoice: choice}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.reqs) != 2 || p2.reqs[1].Sampling.ToolChoice != nil || p2.reqs[0].Sampling.ToolChoice == nil {
		t.Errorf("tool_choice per call: %v / %v, want on the first call only", p2.reqs[0].Sampling, p2.reqs[1].Sampling)
	}
	if last := route.evs[len(route.evs)-1]; last.Type != beamclaw.EvFinal || last.Text != "found it" || len(last.Calls) != 0 {
		t.Errorf("last event %+v", last)
	}
}

// A function named like one of the agent's tools is not offered: the
// agent's tool keeps its name and runs inside beamclaw.
func TestFunctionCannotShadowAnAgentTool(t *testing.T) {
	defs := withFunctions([]beamclaw.ToolDef{{Name: "upper"}}, []beamclaw.ToolDef{{Name: "upper", Source: beamclaw.SourceClient}, lookupFn})
	if len(defs) != 2 || defs[0].Source != "" || defs[1].Name != "lookup" {
		t.Errorf("defs %+v", defs)
	}
}

// On a route that cannot approve, a call needing approval is not run and
// the route is told which (the OpenAI APIs say so in their answer).
func TestNoApprovalRouteHearsOfTheRefusedCall(t *testing.T) {
	p := &stepProvider{resps: []beamclaw.Message{
		{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "c1", Name: "upper", Args: json.RawMessage(`{}`)}}},
		{Role: beamclaw.RoleAssistant, Content: "could not"},
	}}
	eng := newFunctionsEngine(t, p)
	route := &routeLog{}
	err := eng.Run(context.Background(), Run{ID: "r1", SessionID: "s1", Channel: "http", Autonomy: beamclaw.Supervised, NoApproval: true,
		History: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}, Route: route, Lane: &fakeLane{}})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	for _, ev := range route.evs {
		if ev.Type == beamclaw.EvNeedsApproval {
			asked = append(asked, ev.Tool.Name)
		}
	}
	if len(asked) != 1 || asked[0] != "upper" {
		t.Errorf("needs_approval events for %v, want [upper]", asked)
	}
}
