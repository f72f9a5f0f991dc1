package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// DefaultThinking is the thinking a reply without Reasoning streams when
// the request enabled thinking.
const DefaultThinking = "Let me think this over (fakellm)."

// thinkingSignature is the signature of every thinking block.
const thinkingSignature = "fakellm-signature"

// answerBlock is one content block of an Anthropic answer: how it starts, and
// its deltas.
type answerBlock struct {
	start  map[string]any   // content_block_start's content_block
	deltas []map[string]any // content_block_delta's deltas
	whole  map[string]any   // the block in a non-streamed message
}

// anthropicStop is Anthropic's stop_reason for a reply's finish reason.
func anthropicStop(finish string) string {
	switch finish {
	case "stop":
		return "end_turn"
	case "tool_calls":
		return "tool_use"
	case "length":
		return "max_tokens"
	}
	return finish
}

// anthropicUsage is the answer's usage in Anthropic's terms: the prompt
// tokens read from and written to the cache apart, input_tokens the rest.
func (a chatAnswer) anthropicUsage() map[string]any {
	read, write := 0, 0
	if d := a.usage.Details; d != nil {
		read, write = d.CachedTokens, d.CacheWriteTokens
	}
	return map[string]any{
		"input_tokens":                max(0, a.usage.PromptTokens-read-write),
		"cache_read_input_tokens":     read,
		"cache_creation_input_tokens": write,
		"output_tokens":               a.usage.CompletionTokens,
	}
}

// anthropicBlocks are the answer's content blocks: thinking (when the
// request enabled it), text, then each tool call.
func (a chatAnswer) anthropicBlocks() []answerBlock {
	var out []answerBlock
	if a.thinking {
		text := a.reply.Reasoning
		if text == "" {
			text = DefaultThinking
		}
		b := answerBlock{start: map[string]any{"type": "thinking", "thinking": "", "signature": ""},
			whole: map[string]any{"type": "thinking", "thinking": text, "signature": thinkingSignature}}
		for _, p := range SplitWords(text) {
			b.deltas = append(b.deltas, map[string]any{"type": "thinking_delta", "thinking": p})
		}
		b.deltas = append(b.deltas, map[string]any{"type": "signature_delta", "signature": thinkingSignature})
		out = append(out, b)
	}
	if text := a.reply.text(); text != "" || len(a.calls) == 0 {
		b := answerBlock{start: map[string]any{"type": "text", "text": ""}, whole: map[string]any{"type": "text", "text": text}}
		for _, p := range a.reply.pieces() {
			b.deltas = append(b.deltas, map[string]any{"type": "text_delta", "text": p})
		}
		out = append(out, b)
	}
	for _, tc := range a.calls {
		var input any = json.RawMessage(tc.Arguments)
		if !json.Valid([]byte(tc.Arguments)) {
			input = tc.Arguments // bad arguments stay visible as they were
		}
		b := answerBlock{start: map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": map[string]any{}},
			whole: map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": input}}
		for args := tc.Arguments; args != ""; {
			n := min(argPieceLen, len(args))
			b.deltas = append(b.deltas, map[string]any{"type": "input_json_delta", "partial_json": args[:n]})
			args = args[n:]
		}
		out = append(out, b)
	}
	return out
}

// anthropicMessage is the non-streamed answer.
func (a chatAnswer) anthropicMessage() map[string]any {
	var content []map[string]any
	for _, b := range a.anthropicBlocks() {
		content = append(content, b.whole)
	}
	return map[string]any{"id": a.id, "type": "message", "role": "assistant", "model": a.model, "content": content,
		"stop_reason": anthropicStop(a.finishReason()), "stop_sequence": nil, "usage": a.anthropicUsage()}
}

// sseEvent is one named server-sent event.
type sseEvent struct {
	name string
	data map[string]any
}

// anthropicEvents are the stream's events after message_start: chunks,
// each one delta with the block starts and stops before it (so a reply's
// HoldAfter and BreakAfter count deltas, as on the OpenAI wire), and the
// tail (the last stop, message_delta, message_stop).
func (a chatAnswer) anthropicEvents() (chunks [][]sseEvent, tail []sseEvent) {
	var pending []sseEvent
	for i, b := range a.anthropicBlocks() {
		pending = append(pending, sseEvent{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": b.start}})
		for _, d := range b.deltas {
			chunks = append(chunks, append(pending, sseEvent{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}}))
			pending = nil
		}
		pending = append(pending, sseEvent{"content_block_stop", map[string]any{"type": "content_block_stop", "index": i}})
	}
	tail = append(pending,
		sseEvent{"message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": anthropicStop(a.finishReason()), "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": a.usage.CompletionTokens}}},
		sseEvent{"message_stop", map[string]any{"type": "message_stop"}})
	return chunks, tail
}

// streamAnthropic writes the answer as Anthropic's server-sent events:
// message_start (with the prompt's usage), ping, the content blocks,
// message_delta (stop reason, output tokens), message_stop; or, for a
// reply with StreamError, an error event after the deltas.
func (s *Server) streamAnthropic(w http.ResponseWriter, r *http.Request, a chatAnswer, holdLater bool) {
	flusher, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(evs ...sseEvent) {
		for _, ev := range evs {
			b, _ := json.Marshal(ev.data)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, b)
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	start := a.anthropicUsage()
	start["output_tokens"] = 1 // as Anthropic: the output so far
	send(sseEvent{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": start}}},
		sseEvent{"ping", map[string]any{"type": "ping"}})
	chunks, tail := a.anthropicEvents()
	if !s.play(r, a.reply, holdLater, len(chunks), func(i int) { send(chunks[i]...) }) {
		return
	}
	if a.reply.StreamError != 0 {
		send(sseEvent{"error", anthropicError(a.reply.StreamError, errorText(a.reply))})
		return
	}
	send(tail...)
}
