package e2e

import (
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestLoopBreakerThroughTheDaemon (issue 25, item 4): a model that asks
// for more tool calls in a turn than core.agentic_loop.max_tool_calls_per_turn
// allows gets none of them run; the user is told why.
func TestLoopBreakerThroughTheDaemon(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"},
		core: "  agentic_loop:\n    max_tool_calls_per_turn: 2\n"})
	r.llm.SetDefault(fakellm.Rules)
	list := fakellm.ToolCall{Name: "workspace_memory", Arguments: `{"action":"list_daily"}`}
	read := fakellm.ToolCall{Name: "workspace_memory", Arguments: `{"action":"read"}`}
	r.llm.Script(fakellm.Reply{ToolCalls: []fakellm.ToolCall{list, read}}, fakellm.Reply{ToolCalls: []fakellm.ToolCall{list}})
	r.start()
	answer := r.chat("ana", "keep calling tools")
	if !strings.Contains(answer, "more than 2 tool calls") || !strings.Contains(answer, "max_tool_calls_per_turn") {
		t.Errorf("answer %q does not say the turn stopped at its tool-call cap", answer)
	}
	if n := len(r.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2 (the cap stops the turn before a third)", n)
	}
	if !strings.Contains(r.h.logs(), "turn_limit") {
		t.Error("no turn_limit event in the log")
	}
}
