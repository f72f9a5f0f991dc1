package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// argPieceLen is how many bytes of tool-call arguments go in one delta.
const argPieceLen = 12

// deltas is the ordered list of streamed deltas after the role chunk:
// reasoning, then content, then tool calls (name first, arguments in
// pieces).
func (a chatAnswer) deltas() []map[string]any {
	var out []map[string]any
	for _, p := range SplitWords(a.reply.Reasoning) {
		out = append(out, map[string]any{"reasoning_content": p})
	}
	for _, p := range a.reply.pieces() {
		out = append(out, map[string]any{"content": p})
	}
	for i, tc := range a.calls {
		out = append(out, map[string]any{"tool_calls": []map[string]any{{
			"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""},
		}}})
		args := tc.Arguments
		for args != "" {
			n := min(argPieceLen, len(args))
			out = append(out, map[string]any{"tool_calls": []map[string]any{{
				"index": i, "function": map[string]any{"arguments": args[:n]},
			}}})
			args = args[n:]
		}
	}
	return out
}

// stream writes the answer as server-sent events. With holdLater the
// reply's Hold is awaited after HoldAfter deltas.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, a chatAnswer, holdLater bool) {
	flusher, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	send := func(data []byte) {
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send(a.chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	deltas := a.deltas()
	if !s.play(r, a.reply, holdLater, len(deltas), func(i int) { send(a.chunk(deltas[i], nil)) }) {
		return
	}
	if a.reply.StreamError != 0 {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": errorText(a.reply), "code": a.reply.StreamError}})
		send(b)
		return
	}
	finish := a.finishReason()
	send(a.chunk(map[string]any{}, &finish))
	if req.IncludeUsage && !a.reply.NoUsage {
		b, _ := json.Marshal(map[string]any{
			"id": a.id, "object": "chat.completion.chunk", "created": a.created, "model": a.model,
			"choices": []any{}, "usage": a.usage,
		})
		send(b)
	}
	send([]byte("[DONE]"))
}

// play sends n deltas with the reply's pacing: its Hold after HoldAfter
// deltas (with holdLater), its cut after BreakAfter, its ChunkDelay
// before each. It reports whether the stream goes on (false: the client
// left, the server closed, or the hold was abandoned).
func (s *Server) play(r *http.Request, reply Reply, holdLater bool, n int, send func(i int)) bool {
	for i := 0; i <= n; i++ {
		if holdLater && i == min(reply.HoldAfter, n) && !s.hold(r, reply.Hold) {
			return false
		}
		if reply.BreakAfter > 0 && i == min(reply.BreakAfter, n) {
			panic(http.ErrAbortHandler) // net/http cuts the connection mid-body
		}
		if i == n {
			break
		}
		if !s.pause(r, reply.ChunkDelay) {
			return false
		}
		send(i)
	}
	return true
}
