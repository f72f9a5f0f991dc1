package loop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// combiner calls other tools through the ToolCaller in its context (as
// the sandbox bridge does) and reports what each call gave.
type combiner struct{ calls []string }

func (combiner) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "combiner", Parameters: json.RawMessage(`{"type":"object"}`)},
		MinAutonomy: beamclaw.ReadOnly}
}

func (c combiner) Execute(ctx context.Context, _ beamclaw.Invocation) (string, error) {
	tc, ok := beamclaw.ToolCallerFrom(ctx)
	if !ok {
		return "no tool caller", nil
	}
	var names []string
	for _, s := range tc.Specs() {
		names = append(names, s.Def.Name)
	}
	out := []string{"specs " + strings.Join(names, ",")}
	for _, name := range c.calls {
		res, err := tc.CallTool(ctx, name, json.RawMessage(`{"x":"y"}`))
		if err != nil {
			out = append(out, name+" error: "+err.Error())
			continue
		}
		out = append(out, name+": "+res)
	}
	return strings.Join(out, "\n"), nil
}

// leaky returns a secret-shaped string.
type leaky struct{}

func (leaky) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "leaky", Parameters: json.RawMessage(`{"type":"object"}`)},
		MinAutonomy: beamclaw.ReadOnly}
}
func (leaky) Execute(context.Context, beamclaw.Invocation) (string, error) {
	return "key sk-abcdefghijklmnopqrstuvwxyz0123456789", nil
}

// adminOnly needs full autonomy.
type adminOnly struct{}

func (adminOnly) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "admin_only", Parameters: json.RawMessage(`{"type":"object"}`)},
		MinAutonomy: beamclaw.Full}
}
func (adminOnly) Execute(context.Context, beamclaw.Invocation) (string, error) { return "ran", nil }

func runCombiner(t *testing.T, r Run, lane *fakeLane, calls ...string) (*routeLog, string) {
	t.Helper()
	reg := tool.New(tool.Options{})
	for _, tl := range []beamclaw.Tool{combiner{calls: calls}, upper{}, leaky{}, adminOnly{}} {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	p := &stepProvider{resps: []beamclaw.Message{
		{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "c1", Name: "combiner", Args: json.RawMessage(`{}`)}}},
		{Role: beamclaw.RoleAssistant, Content: "done"},
	}}
	eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return p, "m", nil }, Tools: reg})
	if err != nil {
		t.Fatal(err)
	}
	route := &routeLog{}
	r.ID, r.SessionID, r.Route, r.Lane = "r1", "s1", route, lane
	r.History = []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}
	if err := eng.Run(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return route, lane.commits[0][1].Content
}

// A tool's own tool calls get the run's policy, approvals and scrubbing,
// and are shown on the route with ids derived from the parent call.
func TestNestedCallsFollowTheRunsPolicy(t *testing.T) {
	tests := []struct {
		name string
		run  Run
		lane *fakeLane
		want string
	}{
		{"approved on the route", Run{Channel: beamclaw.ChannelTUI, Autonomy: beamclaw.Supervised},
			&fakeLane{decision: beamclaw.Allow},
			"specs combiner,leaky,upper\nupper: {\"X\":\"Y\"}\nleaky: key [REDACTED]\nadmin_only error: denied: tool admin_only needs autonomy full or higher; this agent runs at supervised"},
		{"denied by the user", Run{Channel: beamclaw.ChannelTUI, Autonomy: beamclaw.Supervised},
			&fakeLane{decision: beamclaw.Deny},
			"specs combiner,leaky,upper\nupper error: denied: tool upper was not run: the user denied it"},
		{"nobody to ask", Run{Channel: beamclaw.ChannelHTTP, Autonomy: beamclaw.Supervised, NoApproval: true},
			&fakeLane{decision: beamclaw.Allow},
			"specs combiner,leaky,upper\nupper error: denied: tool upper needs approval"},
		{"full autonomy", Run{Channel: beamclaw.ChannelTUI, Autonomy: beamclaw.Full}, &fakeLane{},
			"specs admin_only,combiner,leaky,upper\nadmin_only: ran"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := map[string][]string{
				"approved on the route": {"upper", "leaky", "admin_only"},
				"denied by the user":    {"upper"},
				"nobody to ask":         {"upper"},
				"full autonomy":         {"admin_only"},
			}[tt.name]
			route, got := runCombiner(t, tt.run, tt.lane, calls...)
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("combiner result:\n%s\nwant prefix:\n%s", got, tt.want)
			}
			if tt.name != "approved on the route" {
				return
			}
			var seen []string
			for _, ev := range route.evs {
				switch ev.Type {
				case beamclaw.EvToolStart:
					seen = append(seen, "start "+ev.Tool.ID+" "+ev.Tool.Name)
				case beamclaw.EvApprovalRequest:
					seen = append(seen, "approval "+ev.Approval.ID)
				}
			}
			want := []string{"start c1 combiner", "approval appr_c1_1", "start c1_1 upper", "start c1_2 leaky"}
			if diff := cmp.Diff(want, seen); diff != "" {
				t.Errorf("route events (-want +got):\n%s", diff)
			}
		})
	}
}
