package loop

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// asking is a tool that asks the user one question through the Asker in
// its context and reports the answer.
type asking struct{}

func (asking) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "asking", Parameters: json.RawMessage(`{"type":"object"}`)},
		MinAutonomy: beamclaw.ReadOnly}
}
func (asking) Execute(ctx context.Context, _ beamclaw.Invocation) (string, error) {
	a, ok := beamclaw.AskerFrom(ctx)
	if !ok {
		return "", errors.New("no asker")
	}
	ans, err := a.Ask(ctx, beamclaw.Elicitation{ID: "el-1", Source: "mcp:x", Message: "Name?"})
	if err != nil {
		return "refused: " + err.Error(), nil
	}
	b, _ := json.Marshal(ans)
	return string(b), nil
}

func runAsking(t *testing.T, r Run) (*routeLog, *fakeLane, string) {
	t.Helper()
	reg := tool.New(tool.Options{})
	if err := reg.Register(asking{}); err != nil {
		t.Fatal(err)
	}
	p := &stepProvider{resps: []beamclaw.Message{
		{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "c1", Name: "asking", Args: json.RawMessage(`{}`)}}},
		{Role: beamclaw.RoleAssistant, Content: "done"},
	}}
	eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return p, "m", nil }, Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	lane := &fakeLane{answer: beamclaw.ElicitAnswer{Action: "accept", Content: map[string]any{"name": "Ada"}}}
	route := &routeLog{}
	r.ID, r.SessionID, r.Autonomy, r.Route, r.Lane = "r1", "s1", beamclaw.Supervised, route, lane
	r.History = []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}
	if err := eng.Run(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return route, lane, lane.commits[0][1].Content
}

func TestToolQuestionGoesToTheRoute(t *testing.T) {
	route, lane, result := runAsking(t, Run{Channel: beamclaw.ChannelTUI})
	if result != `{"action":"accept","content":{"name":"Ada"}}` {
		t.Errorf("tool result = %s", result)
	}
	if len(lane.asked) != 1 || lane.asked[0].ID != "el-1" {
		t.Errorf("lane asked %+v", lane.asked)
	}
	var kinds []beamclaw.RunEventType
	for _, ev := range route.evs {
		if ev.Type == beamclaw.EvElicitation || ev.Type == beamclaw.EvElicitResult {
			kinds = append(kinds, ev.Type)
		}
	}
	if len(kinds) != 2 || kinds[0] != beamclaw.EvElicitation {
		t.Errorf("route events %v", kinds)
	}
}

func TestToolQuestionRefusedWhereNobodyCanAnswer(t *testing.T) {
	for _, r := range []Run{{Channel: beamclaw.ChannelHTTP, NoApproval: true}, {Channel: beamclaw.ChannelScheduler}} {
		_, lane, result := runAsking(t, r)
		if !strings.Contains(result, "cannot put a question to the user") || len(lane.asked) != 0 {
			t.Errorf("%s: result %q, lane asked %d", r.Channel, result, len(lane.asked))
		}
	}
}
