package loop

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSplitPoint(t *testing.T) {
	msg := func(r beamclaw.Role, n int) beamclaw.Message {
		return beamclaw.Message{Role: r, Content: strings.Repeat("x", n*4)}
	}
	u, a, tl := beamclaw.RoleUser, beamclaw.RoleAssistant, beamclaw.RoleTool
	cases := []struct {
		name   string
		h      []beamclaw.Message
		budget int
		want   int
	}{
		{"keeps what fits", []beamclaw.Message{msg(u, 10), msg(a, 10), msg(u, 10), msg(a, 10), msg(u, 10)}, 25, 3},
		{"always keeps the last user message", []beamclaw.Message{msg(u, 10), msg(a, 10), msg(u, 100)}, 5, 2},
		{"keeps the run's tail after its input", []beamclaw.Message{msg(u, 10), msg(u, 10), msg(a, 50), msg(tl, 50)}, 5, 1},
		{"never starts with tool results", []beamclaw.Message{msg(u, 10), msg(a, 10), msg(tl, 1), msg(a, 1), msg(u, 1)}, 3, 3},
		{"everything fits", []beamclaw.Message{msg(u, 1), msg(a, 1)}, 100, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitPoint(tc.h, tc.budget); got != tc.want {
				t.Errorf("splitPoint = %d, want %d", got, tc.want)
			}
		})
	}
}

// fakeLane records commits and answers approvals with a fixed decision.
type fakeLane struct {
	mu       sync.Mutex
	commits  [][]beamclaw.Message
	spent    []beamclaw.LLMCall
	replaced [][]beamclaw.Message
	decision beamclaw.Decision
	answer   beamclaw.ElicitAnswer
	asked    []beamclaw.Elicitation
	kept     []Output
}

func (l *fakeLane) Commit(_ context.Context, msgs []beamclaw.Message) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.commits = append(l.commits, msgs)
	return nil
}
func (l *fakeLane) Replace(_ context.Context, h []beamclaw.Message) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.replaced = append(l.replaced, h)
	return nil
}
func (l *fakeLane) Spend(c beamclaw.LLMCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spent = append(l.spent, c)
}
func (l *fakeLane) Keep(out Output) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out.Handle = "out-" + strconv.Itoa(len(l.kept)+1)
	l.kept = append(l.kept, out)
	return out.Handle
}
func (l *fakeLane) Allowed(string) bool { return false }
func (l *fakeLane) Await(_ context.Context, _ beamclaw.ApprovalRequest, _ string, asked func()) (beamclaw.Decision, error) {
	asked()
	return l.decision, nil
}
func (l *fakeLane) Ask(_ context.Context, e beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, e)
	return l.answer, nil
}

type stepProvider struct {
	resps []beamclaw.Message
	n     int
}

func (p *stepProvider) Name() string { return "steps" }
func (p *stepProvider) Chat(_ context.Context, _ beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	m := p.resps[p.n]
	p.n++
	onText(m.Content)
	return beamclaw.ChatResponse{Message: m}, nil
}

type routeLog struct{ evs []beamclaw.RunEvent }

func (r *routeLog) Deliver(ev beamclaw.RunEvent) { r.evs = append(r.evs, ev) }

type emitLog struct{ evs []beamclaw.Event }

func (e *emitLog) Emit(_ context.Context, ev beamclaw.Event) { e.evs = append(e.evs, ev) }

type upper struct{}

func (upper) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "upper", Parameters: json.RawMessage(`{"type":"object"}`)},
		RequiresApproval: true, MinAutonomy: beamclaw.ReadOnly}
}
func (upper) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	return strings.ToUpper(string(inv.Args)), nil
}

func TestRunStatesAndEvents(t *testing.T) {
	reg := tool.New(tool.Options{})
	if err := reg.Register(upper{}); err != nil {
		t.Fatal(err)
	}
	p := &stepProvider{resps: []beamclaw.Message{
		{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "c1", Name: "upper", Args: json.RawMessage(`{"a":"b"}`)}}},
		{Role: beamclaw.RoleAssistant, Content: "done"},
	}}
	em := &emitLog{}
	eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return p, "m", nil },
		Tools: reg, Emitter: em})
	if err != nil {
		t.Fatal(err)
	}
	lane := &fakeLane{decision: beamclaw.Allow}
	route := &routeLog{}
	err = eng.Run(context.Background(), Run{ID: "r1", SessionID: "s1", Channel: "tui", Autonomy: beamclaw.Supervised,
		History: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}, Route: route, Lane: lane})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, ev := range em.evs {
		if ev.Name == "loop_state" {
			states = append(states, ev.Attrs[0].Value.String())
		}
	}
	want := []string{StateStreaming, StateAwaitingApproval, StateExecutingTools, StateStreaming, StateFinalizing, StateIdle}
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	last := route.evs[len(route.evs)-1]
	if last.Type != beamclaw.EvFinal || last.Text != "done" || last.RunID != "r1" {
		t.Errorf("last event %+v", last)
	}
	if len(lane.commits) != 2 || len(lane.commits[0]) != 2 || lane.commits[0][1].Content != `{"A":"B"}` {
		t.Errorf("commits %+v", lane.commits)
	}
}
