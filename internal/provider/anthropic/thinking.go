package anthropic

import (
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Thinking budgets (budget_tokens) of the reasoning efforts; "none" or
// no effort sends no thinking.
var thinkingBudgets = map[string]int{"minimal": 1024, "low": 1024, "medium": 4096, "high": 16384, "xhigh": 32768}

// maxThoughts bounds the answers whose thinking is kept (a budget of
// thinking text each; all are dropped when full, as a tool loop needs
// only its own last few).
const maxThoughts = 256

// thought is one thinking block of an answer, exactly as it came.
type thought struct {
	redacted        bool
	text, signature string // a redacted block's data is its signature
}

// thoughts keeps the thinking blocks of answers that called tools, by
// their first call's id, to hand them back unchanged while the tool loop
// goes on: with thinking on, the API refuses a tool loop's assistant
// message that does not start with its thinking. They never enter the
// history: beamclaw.Message has no place for them, and no user sees them.
type thoughts struct {
	mu     sync.Mutex
	byCall map[string][]thought
}

func newThoughts() *thoughts { return &thoughts{byCall: map[string][]thought{}} }

// keep remembers blocks (the thinking of an answer) for its calls.
func (t *thoughts) keep(calls []beamclaw.ToolCall, blocks []*block) {
	if len(calls) == 0 || len(blocks) == 0 {
		return
	}
	kept := make([]thought, 0, len(blocks))
	for _, b := range blocks {
		kept = append(kept, thought{redacted: b.typ == "redacted_thinking", text: b.text.String(), signature: b.signature})
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byCall) >= maxThoughts {
		clear(t.byCall)
	}
	t.byCall[calls[0].ID] = kept
}

// of returns the thinking of the answer that made calls, or nil.
func (t *thoughts) of(calls []beamclaw.ToolCall) []thought {
	if len(calls) == 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byCall[calls[0].ID]
}

// blocks are the thinking as request blocks.
func thinkingBlocks(ts []thought) []sdk.ContentBlockParamUnion {
	out := make([]sdk.ContentBlockParamUnion, 0, len(ts))
	for _, t := range ts {
		if t.redacted {
			out = append(out, sdk.ContentBlockParamUnion{OfRedactedThinking: &sdk.RedactedThinkingBlockParam{Data: t.signature}})
			continue
		}
		out = append(out, sdk.ContentBlockParamUnion{OfThinking: &sdk.ThinkingBlockParam{Thinking: t.text, Signature: t.signature}})
	}
	return out
}

// toolLoop is the index of the first message of the tool loop the
// messages end in (the assistant messages with tool calls after the last
// user message, each followed by its results), or len(msgs) when they end
// in none.
func toolLoop(msgs []beamclaw.Message) int {
	start := len(msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		switch m := msgs[i]; {
		case m.Role == beamclaw.RoleTool || m.Role == beamclaw.RoleSystem:
		case m.Role == beamclaw.RoleAssistant && len(m.ToolCalls) > 0:
			start = i
		default:
			return start
		}
	}
	return start
}
