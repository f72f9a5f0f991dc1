package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// printer prints lines numbered from 0, a secret among them, and its own
// page size; with nested set, it prints what printing through the run's
// ToolCaller gave instead.
type printer struct {
	name   string
	lines  int
	nested string
	pages  *[]int
}

func (p printer) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: p.name, Parameters: json.RawMessage(`{"type":"object"}`)},
		MinAutonomy: beamclaw.ReadOnly}
}

func (p printer) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	*p.pages = append(*p.pages, inv.PageBytes)
	if p.nested != "" {
		tc, _ := beamclaw.ToolCallerFrom(ctx)
		out, err := tc.CallTool(ctx, p.nested, nil)
		return fmt.Sprintf("the nested call gave %d bytes", len(out)), err
	}
	return printed(p.lines), nil
}

// printed is what a printer of n lines prints.
func printed(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %04d\n", i)
		if i == n/2 {
			b.WriteString("token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
		}
	}
	return b.String()
}

func runPrinter(t *testing.T, opts Options, call string, tools ...beamclaw.Tool) (*fakeLane, *routeLog) {
	t.Helper()
	reg := tool.New(tool.Options{})
	for _, tl := range tools {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	p := &stepProvider{resps: []beamclaw.Message{
		{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "c1", Name: call, Args: json.RawMessage(`{}`)}}},
		{Role: beamclaw.RoleAssistant, Content: "done"},
	}}
	opts.Providers, opts.Tools = func(string) (beamclaw.Provider, string, error) { return p, "m", nil }, reg
	eng, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	lane, route := &fakeLane{}, &routeLog{}
	err = eng.Run(context.Background(), Run{ID: "r1", SessionID: "s1", Channel: beamclaw.ChannelTUI, Autonomy: beamclaw.Full,
		History: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}, Route: route, Lane: lane})
	if err != nil {
		t.Fatal(err)
	}
	return lane, route
}

// A result longer than the page size reaches the history and the route as
// its view; the whole of it, scrubbed, goes to the lane with the step
// that names it.
func TestLongResultIsPagedAndKept(t *testing.T) {
	var pages []int
	lane, route := runPrinter(t, Options{Paging: tool.Paging{Bytes: 200}}, "print", printer{name: "print", lines: 100, pages: &pages})
	whole := strings.Replace(printed(100), "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]", 1)
	if diff := cmp.Diff([]Output{{Handle: "out-1", CallID: "c1", Tool: "print", Content: whole}}, lane.kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	view := tool.View(whole, 200, "out-1")
	if got := lane.commits[0][1].Content; got != view {
		t.Errorf("the tool message holds %q, want the view %q", got, view)
	}
	for _, ev := range route.evs {
		if ev.Type == beamclaw.EvToolResult && ev.Result.Content != view {
			t.Errorf("the route got %d bytes, not the view", len(ev.Result.Content))
		}
	}
	if diff := cmp.Diff([]int{200}, pages); diff != "" {
		t.Errorf("the tool's page sizes (-want +got):\n%s", diff)
	}
}

// Short results are the history's as they are; the page size comes from
// the model's window unless configured, per tool first.
func TestShortResultIsNotKept(t *testing.T) {
	var pages []int
	window := func(string) int { return 200000 }
	lane, _ := runPrinter(t, Options{Window: window}, "print", printer{name: "print", lines: 100, pages: &pages})
	if len(lane.kept) != 0 || !strings.HasSuffix(lane.commits[0][1].Content, "line 0099\n") {
		t.Errorf("a result within the page size was kept (%d) or cut: %q", len(lane.kept), lane.commits[0][1].Content)
	}
	runPrinter(t, Options{Window: window, Paging: tool.Paging{Bytes: 100, PerTool: map[string]int{"print": 3000}}}, "print",
		printer{name: "print", lines: 1, pages: &pages})
	if diff := cmp.Diff([]int{24000, 3000}, pages); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}
}

// A tool's own calls (the sandbox bridge) get whole results: they go to
// the tool, not to the model's history.
func TestNestedResultIsWhole(t *testing.T) {
	var pages []int
	lane, _ := runPrinter(t, Options{Paging: tool.Paging{Bytes: 200}}, "outer",
		printer{name: "outer", nested: "print", pages: &pages}, printer{name: "print", lines: 100, pages: &pages})
	want := fmt.Sprintf("the nested call gave %d bytes", len(printed(100))-len("ghp_abcdefghijklmnopqrstuvwxyz0123456789")+len("[REDACTED]"))
	if got := lane.commits[0][1].Content; got != want || len(lane.kept) != 0 {
		t.Errorf("outer said %q (want %q), kept %d", got, want, len(lane.kept))
	}
}
