package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// chunkJSON is one streamed chat.completion.chunk, or (with Message set)
// a whole non-streamed chat.completion.
type chunkJSON struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []choiceJSON    `json:"choices"`
	Usage   *usageJSON      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choiceJSON struct {
	Index        int          `json:"index"`
	Delta        deltaJSON    `json:"delta"`
	Message      *messageJSON `json:"message"`
	FinishReason string       `json:"finish_reason"`
}

type deltaJSON struct {
	Content          string          `json:"content"`
	ToolCalls        []toolDeltaJSON `json:"tool_calls"`
	Reasoning        string          `json:"reasoning"`         // read only to notice a live stream
	ReasoningContent string          `json:"reasoning_content"` // likewise; never shown
}

type messageJSON struct {
	Content   string          `json:"content"`
	ToolCalls []toolDeltaJSON `json:"tool_calls"`
}

type toolDeltaJSON struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type usageJSON struct {
	PromptTokens     int          `json:"prompt_tokens"`
	CompletionTokens int          `json:"completion_tokens"`
	TotalTokens      int          `json:"total_tokens"`
	Details          *detailsJSON `json:"prompt_tokens_details"`
}

// detailsJSON is usage.prompt_tokens_details: the prompt tokens served
// from the provider's cache.
type detailsJSON struct {
	CachedTokens int `json:"cached_tokens"`
}

type callBuilder struct {
	id, name string
	args     strings.Builder
}

// assembler accumulates a streamed answer: visible text (reasoning
// removed, passed on to onText), tool calls by index, usage, finish.
type assembler struct {
	filter  thinkFilter
	content strings.Builder
	calls   []*callBuilder
	byIndex map[int]*callBuilder
	usage   beamclaw.Usage
	model   string
	finish  string
	onText  func(string)
	emitted bool   // visible text went to onText
	live    bool   // any token (text, reasoning, tool call, finish) arrived
	onLive  func() // called once when the first token arrives
}

func newAssembler(onText func(string)) *assembler {
	return &assembler{onText: onText, byIndex: make(map[int]*callBuilder)}
}

// add takes one decoded chunk.
func (a *assembler) add(ch *chunkJSON) {
	if ch.Model != "" {
		a.model = ch.Model
	}
	if ch.Usage != nil {
		a.usage = beamclaw.Usage{PromptTokens: ch.Usage.PromptTokens,
			CompletionTokens: ch.Usage.CompletionTokens, TotalTokens: ch.Usage.TotalTokens}
		if d := ch.Usage.Details; d != nil {
			a.usage.CachedTokens = d.CachedTokens
		}
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.Index != 0 {
			continue // only the first choice is used (n is never set)
		}
		d := &c.Delta
		if c.Message != nil {
			d.Content, d.ToolCalls = c.Message.Content, c.Message.ToolCalls
		}
		if !a.live && (d.Content != "" || d.Reasoning != "" || d.ReasoningContent != "" || len(d.ToolCalls) > 0 || c.FinishReason != "") {
			a.live = true
			if a.onLive != nil {
				a.onLive()
			}
		}
		if d.Content != "" {
			a.text(a.filter.Write(d.Content))
		}
		for _, td := range d.ToolCalls {
			a.toolDelta(td)
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
	}
}

func (a *assembler) text(visible string) {
	if visible == "" {
		return
	}
	a.content.WriteString(visible)
	a.emitted = true
	if a.onText != nil {
		a.onText(visible)
	}
}

// toolDelta merges one tool-call delta: by index, a new id at a used
// index starting a new call (some servers reuse index 0).
func (a *assembler) toolDelta(td toolDeltaJSON) {
	var cb *callBuilder
	switch {
	case td.Index != nil:
		if prev, ok := a.byIndex[*td.Index]; ok && (td.ID == "" || prev.id == "" || prev.id == td.ID) {
			cb = prev
		}
	case td.ID == "" && len(a.calls) > 0:
		cb = a.calls[len(a.calls)-1]
	}
	if cb == nil {
		cb = &callBuilder{}
		a.calls = append(a.calls, cb)
		if td.Index != nil {
			a.byIndex[*td.Index] = cb
		}
	}
	if td.ID != "" {
		cb.id = td.ID
	}
	if n := td.Function.Name; n != "" && n != cb.name {
		cb.name += n
	}
	cb.args.WriteString(td.Function.Arguments)
}

// end flushes held text; call once when the stream is complete.
func (a *assembler) end() { a.text(a.filter.Flush()) }

// message is the assembled assistant message.
func (a *assembler) message() beamclaw.Message {
	m := beamclaw.Message{Role: beamclaw.RoleAssistant, Content: a.content.String()}
	for i, cb := range a.calls {
		id := cb.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		m.ToolCalls = append(m.ToolCalls, beamclaw.ToolCall{
			ID: id, Name: cb.name, Args: provider.ToolArgs(cb.args.String()), Source: "native",
		})
	}
	return m
}
