package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Model names the fake reports.
const (
	DefaultModel          = "fake-model"
	DefaultEmbeddingModel = "fake-embedding"
)

type chatAnswer struct {
	id      string
	model   string
	created int64
	reply   Reply
	calls   []ToolCall // with ids filled in
	usage   Usage
	// thinking: the request enabled thinking (Anthropic), so a thinking
	// block comes first.
	thinking bool
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	req, _, err := decodeChat(r.URL.Path, body)
	req.Header = r.Header.Clone()
	if err != nil {
		req.Path = r.URL.Path
		s.next(req)
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ans, holdLater, ok := s.answerFor(w, r, req)
	if !ok {
		return
	}
	if req.Stream {
		s.stream(w, r, req, ans, holdLater)
		return
	}
	writeJSON(w, http.StatusOK, ans.completion())
}

// answerFor takes req's reply (the next scripted one, else the
// Responder's), writes what comes before the answer (a hold, a status
// error) and builds the answer; holdLater says the stream holds after
// Reply.HoldAfter chunks rather than before the first. ok is false when
// the preamble ended the exchange.
func (s *Server) answerFor(w http.ResponseWriter, r *http.Request, req Request) (ans chatAnswer, holdLater, ok bool) {
	reply, scripted := s.next(req)
	if !scripted {
		reply = s.defaultReply(req)
	}
	holdFirst := !req.Stream || reply.HoldAfter <= 0
	if !s.preamble(w, r, reply, holdFirst) {
		return chatAnswer{}, false, false
	}
	return s.answer(req, reply), !holdFirst, true
}

func (s *Server) answer(req Request, reply Reply) chatAnswer {
	idf, callf := "chatcmpl-fake-%d", "call_%d"
	if req.Path == PathMessages {
		idf, callf = "msg_fake_%d", "toolu_fake_%d"
	}
	ans := chatAnswer{
		id:      fmt.Sprintf(idf, s.nextID()),
		model:   req.Model,
		created: s.created,
		reply:   reply,
	}
	if ans.model == "" {
		ans.model = DefaultModel
	}
	for _, tc := range reply.ToolCalls {
		if tc.ID == "" {
			tc.ID = fmt.Sprintf(callf, s.nextID())
		}
		ans.calls = append(ans.calls, tc)
	}
	ans.usage = estimateUsage(req, reply)
	if reply.Usage == nil {
		ans.usage = s.cachedUsage(req, ans.usage)
	}
	return ans
}

func estimateUsage(req Request, reply Reply) Usage {
	if reply.Usage != nil {
		return *reply.Usage
	}
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content) + 4
	}
	out := len(reply.text()) + len(reply.Reasoning)
	for _, tc := range reply.ToolCalls {
		out += len(tc.Name) + len(tc.Arguments)
	}
	u := Usage{PromptTokens: in/4 + 1, CompletionTokens: out/4 + 1}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// text is the full content of a reply.
func (r Reply) text() string {
	if len(r.Chunks) > 0 {
		return strings.Join(r.Chunks, "")
	}
	return r.Text
}

// pieces is the content split into streamed chunks: Chunks as given, or
// Text cut after each space.
func (r Reply) pieces() []string {
	if len(r.Chunks) > 0 {
		return r.Chunks
	}
	return SplitWords(r.Text)
}

// SplitWords cuts text after each run of spaces, so that the pieces
// concatenate back to text ("a b" -> "a ", "b").
func SplitWords(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			return append(out, text)
		}
		j := i
		for j < len(text) && text[j] == ' ' {
			j++
		}
		out = append(out, text[:j])
		text = text[j:]
	}
	return out
}

func (a chatAnswer) finishReason() string {
	switch {
	case a.reply.FinishReason != "":
		return a.reply.FinishReason
	case len(a.calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (a chatAnswer) completion() map[string]any {
	msg := map[string]any{"role": "assistant", "content": a.reply.text(), "refusal": nil}
	if len(a.calls) > 0 {
		calls := make([]wireToolCall, len(a.calls))
		for i, tc := range a.calls {
			calls[i].ID, calls[i].Type = tc.ID, "function"
			calls[i].Function.Name, calls[i].Function.Arguments = tc.Name, tc.Arguments
		}
		msg["tool_calls"] = calls
		if a.reply.text() == "" {
			msg["content"] = nil
		}
	}
	if a.reply.Reasoning != "" {
		msg["reasoning_content"] = a.reply.Reasoning
	}
	out := map[string]any{
		"id": a.id, "object": "chat.completion", "created": a.created, "model": a.model,
		"choices": []map[string]any{{
			"index": 0, "message": msg, "finish_reason": a.finishReason(), "logprobs": nil,
		}},
		"usage": a.usage,
	}
	if a.reply.NoUsage {
		delete(out, "usage")
	}
	return out
}

// chunk builds one chat.completion.chunk event body.
func (a chatAnswer) chunk(delta map[string]any, finish *string) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": a.id, "object": "chat.completion.chunk", "created": a.created, "model": a.model,
		"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
	})
	return b
}
