package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// counting is a tool that counts its runs.
type counting struct{ n *atomic.Int32 }

func (c counting) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "tick", Parameters: json.RawMessage(`{"type":"object"}`)},
		MinAutonomy: beamclaw.ReadOnly}
}
func (c counting) Execute(context.Context, beamclaw.Invocation) (string, error) {
	c.n.Add(1)
	return "ok", nil
}

// greedy asks for three different tool calls on every call and reports
// usage tokens of prompt per call.
type greedy struct {
	calls  atomic.Int32
	prompt int
}

func (g *greedy) Name() string { return "greedy" }
func (g *greedy) Chat(context.Context, beamclaw.ChatRequest, func(string)) (beamclaw.ChatResponse, error) {
	n := g.calls.Add(1)
	var tcs []beamclaw.ToolCall
	for i := range 3 {
		tcs = append(tcs, beamclaw.ToolCall{ID: fmt.Sprintf("c%d-%d", n, i), Name: "tick", Args: json.RawMessage(fmt.Sprintf(`{"i":%d,"n":%d}`, i, n))})
	}
	return beamclaw.ChatResponse{Message: beamclaw.Message{Role: beamclaw.RoleAssistant, ToolCalls: tcs},
		Usage: beamclaw.Usage{PromptTokens: g.prompt, CompletionTokens: 10, TotalTokens: g.prompt + 10}}, nil
}

// The hard loop breaker stops a run at max_tool_calls_per_turn (before
// the calls past it run) and at max_tokens_per_turn, tells the user why,
// and emits turn_limit; it does not warn and go on.
func TestLoopBreakerStopsTheRun(t *testing.T) {
	for _, tc := range []struct {
		name          string
		calls, tokens int
		prompt        int
		wantRan       int32
		wantText      string
	}{
		{"tool calls", 5, -1, 100, 3, "more than 5 tool calls"},
		{"tokens", 50, 1000, 600, 3, "past the limit of 1000 a turn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int32
			reg := tool.New(tool.Options{})
			if err := reg.Register(counting{&ran}); err != nil {
				t.Fatal(err)
			}
			p := &greedy{prompt: tc.prompt}
			em := &emitLog{}
			eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return p, "m", nil },
				Tools: reg, Emitter: em, MaxToolCallsPerTurn: tc.calls, MaxTokensPerTurn: tc.tokens, MaxToolIterations: 100, MaxRepeatedToolCalls: 100})
			if err != nil {
				t.Fatal(err)
			}
			route := &routeLog{}
			err = eng.Run(context.Background(), Run{ID: "r1", SessionID: "s1", Channel: "tui", Autonomy: beamclaw.Full,
				History: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}, Route: route, Lane: &fakeLane{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := ran.Load(); got != tc.wantRan {
				t.Errorf("the tool ran %d times, want %d", got, tc.wantRan)
			}
			last := route.evs[len(route.evs)-1]
			if last.Type != beamclaw.EvFinal || !strings.Contains(last.Text, tc.wantText) {
				t.Errorf("the run ended with %+v, want a final naming %q", last, tc.wantText)
			}
			limited := false
			for _, ev := range em.evs {
				limited = limited || ev.Name == beamclaw.EventTurnLimit
			}
			if !limited {
				t.Error("no turn_limit event")
			}
		})
	}
}

// overflowing answers "context length exceeded" until the history is
// compacted (its request carries a summary), then answers.
type overflowing struct{ calls atomic.Int32 }

func (o *overflowing) Name() string { return "overflowing" }
func (o *overflowing) Chat(_ context.Context, req beamclaw.ChatRequest, _ func(string)) (beamclaw.ChatResponse, error) {
	o.calls.Add(1)
	if req.System == summaryInstruction {
		return beamclaw.ChatResponse{Message: beamclaw.Message{Role: beamclaw.RoleAssistant, Content: "the summary"}}, nil
	}
	for _, m := range req.Messages {
		if strings.HasPrefix(m.Content, SummaryPrefix) {
			return beamclaw.ChatResponse{Message: beamclaw.Message{Role: beamclaw.RoleAssistant, Content: "answered after compaction"}}, nil
		}
	}
	return beamclaw.ChatResponse{}, beamclaw.E("fake", beamclaw.KindTooLarge, "the context window is full", nil)
}

// A provider whose context window is full gets the history compacted and
// the call once more, not a failed turn.
func TestOverflowCompactsAndRetries(t *testing.T) {
	p := &overflowing{}
	eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return p, "m", nil },
		Tools: tool.New(tool.Options{}), Window: func(string) int { return 1000 }})
	if err != nil {
		t.Fatal(err)
	}
	var hist []beamclaw.Message
	for i := range 60 {
		hist = append(hist, beamclaw.Message{Role: beamclaw.RoleUser, Content: strings.Repeat(fmt.Sprint(i), 30)},
			beamclaw.Message{Role: beamclaw.RoleAssistant, Content: "ok"})
	}
	hist = append(hist, beamclaw.Message{Role: beamclaw.RoleUser, Content: "and now?"})
	lane, route := &fakeLane{}, &routeLog{}
	if err := eng.Run(context.Background(), Run{ID: "r1", SessionID: "s1", Channel: "tui", Autonomy: beamclaw.Full,
		History: hist, Route: route, Lane: lane}); err != nil {
		t.Fatal(err)
	}
	last := route.evs[len(route.evs)-1]
	if last.Type != beamclaw.EvFinal || last.Text != "answered after compaction" || len(lane.replaced) != 1 {
		t.Errorf("the run ended with %+v after %d compactions", last, len(lane.replaced))
	}
}

// cutOff streams text, then fails: the provider billed it all the same.
type cutOff struct{}

func (cutOff) Name() string { return "cut" }
func (cutOff) Chat(_ context.Context, _ beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	onText("half an answ")
	return beamclaw.ChatResponse{}, beamclaw.E("fake", beamclaw.KindUnavailable, "stream broke", nil)
}

// A call cut off after it answered was paid for: it is recorded for the
// ledger, estimated, though the run fails.
func TestCutOffCallIsRecorded(t *testing.T) {
	eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return cutOff{}, "m", nil },
		Tools: tool.New(tool.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	lane := &fakeLane{}
	if err := eng.Run(context.Background(), Run{ID: "r1", SessionID: "s1", Channel: "tui", Autonomy: beamclaw.Full,
		History: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}, Route: &routeLog{}, Lane: lane}); err != nil {
		t.Fatal(err)
	}
	if len(lane.spent) != 1 || !lane.spent[0].Estimated || lane.spent[0].Usage.CompletionTokens == 0 || lane.spent[0].Provider != "cut" {
		t.Errorf("spent %+v, want the cut-off call, estimated", lane.spent)
	}
}
