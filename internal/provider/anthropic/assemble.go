package anthropic

import (
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// block is one content block of a streamed answer.
type block struct {
	typ, id, name string
	text          strings.Builder // a tool_use's input JSON, or a thinking block's text
	signature     string          // a thinking block's; a redacted one's data
}

// tokens are Anthropic's usage counts of one message.
type tokens struct {
	input, cacheRead, cacheWrite, output int64
}

// assembler accumulates a streamed message: visible text (passed on to
// onText), tool_use blocks in order, thinking blocks (kept apart, never
// shown), usage, stop reason.
type assembler struct {
	content  strings.Builder
	blocks   map[int64]*block
	order    []*block
	thinking []*block
	tokens   tokens
	model    string
	stop     string
	onText   func(string)
	emitted  bool   // visible text went to onText
	live     bool   // any token (text, thinking, tool input) arrived
	stopped  bool   // message_stop arrived: the answer is whole
	onLive   func() // called once when the first token arrives
}

func newAssembler(onText func(string)) *assembler {
	return &assembler{onText: onText, blocks: map[int64]*block{}}
}

// add takes one event of the stream.
func (a *assembler) add(ev *sdk.MessageStreamEventUnion) {
	switch ev.Type {
	case "message_start":
		a.model = string(ev.Message.Model)
		u := ev.Message.Usage
		a.tokens = tokens{u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens}
	case "content_block_start":
		a.started()
		cb := &ev.ContentBlock
		b := &block{typ: cb.Type, id: cb.ID, name: cb.Name, signature: cb.Signature + cb.Data}
		a.blocks[ev.Index] = b
		a.order = append(a.order, b)
		switch b.typ {
		case "text":
			a.text(cb.Text)
		case "thinking", "redacted_thinking":
			b.text.WriteString(cb.Thinking)
			a.thinking = append(a.thinking, b)
		}
	case "content_block_delta":
		a.started()
		a.delta(a.blocks[ev.Index], &ev.Delta)
	case "message_delta":
		a.started()
		a.stop = string(ev.Delta.StopReason)
		u := ev.Usage
		a.tokens.output = u.OutputTokens
		if u.InputTokens > 0 || u.CacheReadInputTokens > 0 || u.CacheCreationInputTokens > 0 { // the final counts, when sent
			a.tokens.input, a.tokens.cacheRead, a.tokens.cacheWrite = u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens
		}
	case "message_stop":
		a.stopped = true
	}
}

// delta adds one content_block_delta to its block.
func (a *assembler) delta(b *block, d *sdk.MessageStreamEventUnionDelta) {
	switch d.Type {
	case "text_delta":
		a.text(d.Text)
	case "input_json_delta":
		if b != nil {
			b.text.WriteString(d.PartialJSON)
		}
	case "thinking_delta":
		if b != nil {
			b.text.WriteString(d.Thinking)
		}
	case "signature_delta":
		if b != nil {
			b.signature += d.Signature
		}
	}
}

// started notes that the answer is live (the first-token timeout ends).
func (a *assembler) started() {
	if !a.live {
		a.live = true
		if a.onLive != nil {
			a.onLive()
		}
	}
}

func (a *assembler) text(s string) {
	if s == "" {
		return
	}
	a.content.WriteString(s)
	a.emitted = true
	if a.onText != nil {
		a.onText(s)
	}
}

// message is the assembled assistant message: its text and tool calls,
// no thinking.
func (a *assembler) message() beamclaw.Message {
	m := beamclaw.Message{Role: beamclaw.RoleAssistant, Content: a.content.String()}
	for _, b := range a.order {
		if b.typ == "tool_use" {
			m.ToolCalls = append(m.ToolCalls, beamclaw.ToolCall{ID: b.id, Name: b.name,
				Args: provider.ToolArgs(b.text.String()), Source: "native"})
		}
	}
	return m
}

// usage is the message's usage: the prompt is the uncached input, the
// cache reads and the cache writes together.
func (a *assembler) usage() beamclaw.Usage {
	t := a.tokens
	u := beamclaw.Usage{PromptTokens: int(t.input + t.cacheRead + t.cacheWrite), CompletionTokens: int(t.output),
		CachedTokens: int(t.cacheRead), CacheWriteTokens: int(t.cacheWrite)}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}
