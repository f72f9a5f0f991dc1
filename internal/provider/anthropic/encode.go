package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// turn is one message of the request being built: a role and its
// blocks, tool results apart (the API wants them first in a user turn).
type turn struct {
	role    beamclaw.Role // RoleUser or RoleAssistant
	results []sdk.ContentBlockParamUnion
	blocks  []sdk.ContentBlockParamUnion
}

// place is where a block is: its turn, its list, its index.
type place struct {
	turn   *turn
	result bool
	i      int
}

// end is the place of the turn's last block so far; ok false for none.
func (t *turn) end() (place, bool) {
	switch {
	case len(t.blocks) > 0:
		return place{t, false, len(t.blocks) - 1}, true
	case len(t.results) > 0:
		return place{t, true, len(t.results) - 1}, true
	}
	return place{}, false
}

// block is the block at p (found when the turn is complete: appends move
// its lists).
func (p place) block() *sdk.ContentBlockParamUnion {
	if p.result {
		return &p.turn.results[p.i]
	}
	return &p.turn.blocks[p.i]
}

// conversation builds Anthropic's alternating turns from beamclaw
// messages.
type conversation struct {
	turns   []*turn
	system  []string        // system messages, folded into the system blocks
	calls   map[string]bool // the tool_use ids of the last assistant turn
	mark    place           // the end of the previous turn: the cache breakpoint
	marked  bool
	think   map[int][]thought // thinking to put first, by message index
	pending *turn
}

// encodeMessages returns the system messages' texts and the turns of
// msgs, with a cache breakpoint on the last block of msgs[turnStart-1]
// (or the last block before it) when turnStart > 0.
func encodeMessages(msgs []beamclaw.Message, turnStart int, think map[int][]thought) ([]string, []sdk.MessageParam) {
	c := &conversation{calls: map[string]bool{}, think: think}
	for i, m := range msgs {
		c.add(i, m)
		if i == turnStart-1 && c.pending != nil {
			c.mark, c.marked = c.pending.end()
		}
	}
	c.flush()
	if c.marked {
		setCache(c.mark.block())
	}
	out := make([]sdk.MessageParam, 0, len(c.turns)+1)
	if len(c.turns) > 0 && c.turns[0].role != beamclaw.RoleUser {
		out = append(out, sdk.NewUserMessage(sdk.NewTextBlock("(the conversation so far)"))) // the API starts with a user turn
	}
	for _, t := range c.turns {
		content := append(t.results, t.blocks...)
		if t.role == beamclaw.RoleAssistant {
			out = append(out, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: content}})
		} else {
			out = append(out, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: content}})
		}
	}
	return c.system, out
}

// add takes message i.
func (c *conversation) add(i int, m beamclaw.Message) {
	switch m.Role {
	case beamclaw.RoleSystem:
		if m.Content != "" {
			c.system = append(c.system, m.Content)
		}
	case beamclaw.RoleAssistant:
		t := c.to(beamclaw.RoleAssistant)
		t.blocks = append(t.blocks, thinkingBlocks(c.think[i])...)
		if m.Content != "" {
			t.blocks = append(t.blocks, sdk.NewTextBlock(m.Content))
		}
		clear(c.calls)
		for _, tc := range m.ToolCalls {
			id := toolID(tc.ID)
			c.calls[id] = true
			t.blocks = append(t.blocks, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: id, Name: tc.Name, Input: toolInput(tc.Args)}})
		}
	case beamclaw.RoleTool:
		t := c.to(beamclaw.RoleUser)
		if id := toolID(m.ToolCallID); c.calls[id] {
			res := &sdk.ToolResultBlockParam{ToolUseID: id}
			if m.Content != "" {
				res.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Content}}}
			}
			t.results = append(t.results, sdk.ContentBlockParamUnion{OfToolResult: res})
			return
		}
		// its call is not in the turn before (compacted away): the API
		// refuses a result without its call, so it goes as text
		t.blocks = append(t.blocks, sdk.NewTextBlock("Result of tool "+m.Name+": "+m.Content))
	default:
		t := c.to(beamclaw.RoleUser)
		t.blocks = append(t.blocks, userBlocks(m)...)
	}
}

// to returns the turn of role, a new one unless the last is of role
// (the API wants turns to alternate: same-role messages merge).
func (c *conversation) to(role beamclaw.Role) *turn {
	if c.pending != nil && c.pending.role == role {
		return c.pending
	}
	c.flush()
	c.pending = &turn{role: role}
	return c.pending
}

// flush ends the pending turn; a turn left without blocks is dropped.
func (c *conversation) flush() {
	if c.pending != nil && len(c.pending.results)+len(c.pending.blocks) > 0 {
		c.turns = append(c.turns, c.pending)
	}
	c.pending = nil
}

// userBlocks are a user message's text and its images (base64 blocks of
// the types the API takes); any other attachment is named in text.
func userBlocks(m beamclaw.Message) []sdk.ContentBlockParamUnion {
	var out []sdk.ContentBlockParamUnion
	if m.Content != "" {
		out = append(out, sdk.NewTextBlock(m.Content))
	}
	for _, a := range m.Attachments {
		switch mime := strings.ToLower(a.MIME); mime {
		case "image/jpeg", "image/png", "image/gif", "image/webp":
			out = append(out, sdk.NewImageBlockBase64(mime, base64.StdEncoding.EncodeToString(a.Data)))
		default:
			out = append(out, sdk.NewTextBlock("(an attachment "+a.Name+" of type "+a.MIME+" was not sent: the model takes only images)"))
		}
	}
	return out
}

// setCache puts the cache breakpoint on b.
func setCache(b *sdk.ContentBlockParamUnion) {
	cc := sdk.NewCacheControlEphemeralParam()
	switch {
	case b.OfText != nil:
		b.OfText.CacheControl = cc
	case b.OfImage != nil:
		b.OfImage.CacheControl = cc
	case b.OfToolUse != nil:
		b.OfToolUse.CacheControl = cc
	case b.OfToolResult != nil:
		b.OfToolResult.CacheControl = cc
	}
}

// toolInput is a call's arguments as a tool_use input, which must be a
// JSON object: arguments that were not one (the model's bad JSON, kept as
// a string) go as an empty object; the tool's result said what was wrong.
func toolInput(args json.RawMessage) json.RawMessage {
	if a := strings.TrimSpace(string(args)); strings.HasPrefix(a, "{") && json.Valid(args) {
		return args
	}
	return json.RawMessage("{}")
}

// toolID is a call id as the API takes it (letters, digits, _ and -):
// other bytes, from calls another provider named, become _.
func toolID(id string) string {
	if id == "" {
		return "call"
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, id)
}
