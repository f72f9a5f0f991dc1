package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// sdkClient is the official OpenAI Go SDK pointed at the rig's daemon.
func (r *chatRig) sdkClient(opts ...option.RequestOption) openai.Client {
	r.t.Helper()
	base := []option.RequestOption{option.WithBaseURL("http://" + r.addr + "/v1"), option.WithAPIKey("unused"),
		option.WithHTTPClient(r.hc), option.WithMaxRetries(0)}
	return openai.NewClient(append(base, opts...)...)
}

// sdkStream streams a chat completion with the SDK and accumulates it,
// failing on a stream error; chunks counts the chunks read.
func sdkStream(ctx context.Context, t *testing.T, c openai.Client, p openai.ChatCompletionNewParams) (acc openai.ChatCompletionAccumulator, chunks int) {
	t.Helper()
	stream := c.Chat.Completions.NewStreaming(ctx, p)
	defer stream.Close()
	for stream.Next() {
		acc.AddChunk(stream.Current())
		chunks++
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return acc, chunks
}

// providerGot checks that the provider's request had each member of want,
// a json_schema response_format and max tokens 64.
func providerGot(t *testing.T, req fakellm.Request, want map[string]any) {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if got, _ := json.Marshal(body[k]); string(got) != mustJSON(t, v) {
			t.Errorf("provider got %s = %s, want %s", k, got, mustJSON(t, v))
		}
	}
	if rf, _ := body["response_format"].(map[string]any); rf["type"] != "json_schema" {
		t.Errorf("provider got response_format %v", body["response_format"])
	}
	if req.MaxTokens != 64 {
		t.Errorf("provider got max tokens %d, want 64", req.MaxTokens)
	}
}

// TestOpenAISamplingReachesTheProvider: every sampling and output control
// a client sets reaches the provider on every model call of the turn, and
// a wrong type or value is a 400 naming the parameter.
func TestOpenAISamplingReachesTheProvider(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	c := r.sdkClient()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.llm.Script(fakellm.Reply{Text: `{"city":"Paris"}`})
	_, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "default", User: openai.String("sam"),
		Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage("capital of France as JSON")},
		Temperature:         openai.Float(0.2),
		TopP:                openai.Float(0.9),
		MaxCompletionTokens: openai.Int(64),
		Stop:                openai.ChatCompletionNewParamsStopUnion{OfStringArray: []string{"END", "STOP"}},
		Seed:                openai.Int(42),
		PresencePenalty:     openai.Float(0.5),
		FrequencyPenalty:    openai.Float(-0.5),
		ReasoningEffort:     shared.ReasoningEffortLow,
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "city", Schema: map[string]any{"type": "object"}}}},
	})
	if err != nil {
		t.Fatalf("completion: %v", err)
	}
	req := llmLast(t, r.llm)
	providerGot(t, req, map[string]any{"temperature": 0.2, "top_p": 0.9, "seed": 42.0, "presence_penalty": 0.5,
		"frequency_penalty": -0.5, "reasoning_effort": "low", "stop": []any{"END", "STOP"}})

	// Wrong types and values: 400 with the parameter named.
	for _, tc := range []struct{ body, param string }{
		{`{"model":"default","temperature":"hot","messages":[{"role":"user","content":"hi"}]}`, "temperature"},
		{`{"model":"default","top_p":7,"messages":[{"role":"user","content":"hi"}]}`, "top_p"},
		{`{"model":"default","stop":["a","b","c","d","e"],"messages":[{"role":"user","content":"hi"}]}`, "stop"},
		{`{"model":"default","messages":[{"role":"wizard","content":"x"},{"role":"user","content":"hi"}],"user":"sam"}`, "messages[0].role"},
	} {
		status, param := r.postRaw(t, tc.body, nil)
		if status != http.StatusBadRequest || param != tc.param {
			t.Errorf("%s: status %d param %q, want 400 %q", tc.body, status, param, tc.param)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// postRaw posts a chat body and returns the status and the error's param.
func (r *chatRig) postRaw(t *testing.T, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+r.addr+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e protocol.Error
	_ = json.NewDecoder(resp.Body).Decode(&e)
	param := ""
	if e.Error.Param != nil {
		param = *e.Error.Param
	}
	return resp.StatusCode, param
}

// TestOpenAIChatsStayApart: a chat UI (whole conversations) with one user
// keeps each chat to itself, its system message follows the agent's
// prompt, a regenerate stores one answer, and the threads are listed by
// `beamclaw sessions`.
func TestOpenAIChatsStayApart(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	c := r.sdkClient()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ask := func(msgs ...openai.ChatCompletionMessageParamUnion) string {
		t.Helper()
		comp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "default", User: openai.String("uma"), Messages: msgs})
		if err != nil {
			t.Fatalf("completion: %v", err)
		}
		return comp.Choices[0].Message.Content
	}
	u, a, sys := openai.UserMessage[string], openai.AssistantMessage[string], openai.SystemMessage[string]
	r.llm.Script(fakellm.Reply{Text: "A1: blue"}, fakellm.Reply{Text: "B1: green"}, fakellm.Reply{Text: "A2: sky"},
		fakellm.Reply{Text: "B2: grass"}, fakellm.Reply{Text: "A2 again: ocean"})

	a1 := ask(sys("Answer in colours."), u("chat A: my favourite colour is blue"))
	b1 := ask(u("chat B: my favourite colour is green"))
	a2 := ask(sys("Answer in colours."), u("chat A: my favourite colour is blue"), a(a1), u("chat A: what is my colour?"))
	ask(u("chat B: my favourite colour is green"), a(b1), u("chat B: what is my colour?"))
	// Regenerate chat A's second answer.
	ask(sys("Answer in colours."), u("chat A: my favourite colour is blue"), a(a1), u("chat A: what is my colour?"))
	_ = a2

	reqs := r.llm.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d provider requests, want 5", len(reqs))
	}
	for i, req := range reqs {
		text := strings.Join(llmConversation(req), "\n")
		if strings.Contains(text, "chat A") && strings.Contains(text, "chat B") {
			t.Errorf("request %d mixes the chats:\n%s", i, text)
		}
	}
	// The client's system message comes right after the agent's prompt.
	if msgs := reqs[2].Messages; len(msgs) < 2 || msgs[0].Role != "system" || msgs[1].Role != "system" || msgs[1].Content != "Answer in colours." {
		t.Errorf("chat A's prompt starts %+v", msgs[:min(2, len(msgs))])
	}

	// Both chats are stored as sessions of their own; the regenerate
	// replaced chat A's answer (system, user, assistant, user, assistant).
	var list protocol.SessionList
	if err := json.Unmarshal([]byte(r.h.must("sessions", "list", "--json").stdout), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 2 {
		t.Fatalf("sessions: %+v", list.Sessions)
	}
	for _, s := range list.Sessions {
		var d protocol.SessionDetail
		if err := json.Unmarshal([]byte(r.h.must("sessions", "show", s.ID, "--json").stdout), &d); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(s.Title, "chat A") {
			if len(d.Messages) != 5 || d.Messages[4].Content != "A2 again: ocean" {
				t.Errorf("chat A holds %d messages: %+v", len(d.Messages), d.Messages)
			}
		} else if len(d.Messages) != 4 {
			t.Errorf("chat B holds %d messages", len(d.Messages))
		}
	}
}

// TestOpenAIModelsRetrieveCORSAnd429 covers the rest of the OpenAI
// surface: models.retrieve, CORS for configured origins only, and 429
// with Retry-After when every provider rate-limits.
func TestOpenAIModelsRetrieveCORSAnd429(t *testing.T) {
	r := newChatRig(t, rigOptions{http: "    cors_origins: [\"https://chat.example.com\"]\n"})
	r.start()
	c := r.sdkClient()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	m, err := c.Models.Get(ctx, "beamclaw/default")
	if err != nil || m.ID != "beamclaw/default" {
		t.Fatalf("models.retrieve: %+v %v", m, err)
	}
	_, err = c.Models.Get(ctx, "beamclaw/nobody")
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Errorf("retrieve of an unknown model: %v", err)
	}

	for origin, want := range map[string]int{"https://chat.example.com": http.StatusNoContent, "https://evil.example": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodOptions, "http://"+r.addr+"/v1/chat/completions", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		allow := resp.Header.Get("Access-Control-Allow-Origin")
		if resp.StatusCode != want || (want == http.StatusNoContent) != (allow == origin) {
			t.Errorf("preflight from %s: %d, allow %q", origin, resp.StatusCode, allow)
		}
	}

	r.llm.Script(fakellm.Reply{Status: http.StatusTooManyRequests, RetryAfter: 30 * time.Second})
	status, _ := r.postRaw(t, `{"model":"default","messages":[{"role":"user","content":"hi"}]}`, nil)
	if status != http.StatusTooManyRequests {
		t.Errorf("rate-limited provider: status %d, want 429", status)
	}
	r.llm.Script(fakellm.Reply{Status: http.StatusTooManyRequests, RetryAfter: 30 * time.Second})
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/v1/chat/completions",
		strings.NewReader(`{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	resp, err := r.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "30" {
		t.Errorf("streamed: status %d Retry-After %q, want 429 and 30", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// Every answer carries X-Request-Id, the id of its line in the daemon's
// log: the client's own when it is a plain token, else one the daemon made
// (docs/openai-api.md).
func TestOpenAIAnswersCarryTheirRequestID(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.start()
	send := func(id string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/v1/chat/completions",
			strings.NewReader(`{"model":"default","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		if id != "" {
			req.Header.Set("X-Request-Id", id)
		}
		resp, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return resp.Header.Get("X-Request-Id")
	}
	if got := send("client-trace.7"); got != "client-trace.7" {
		t.Errorf("a plain client id came back as %q", got)
	}
	made, replaced := send(""), send("has space")
	if made == "" || replaced == "" || replaced == "has space" || made == replaced {
		t.Errorf("ids made by the daemon: %q and %q", made, replaced)
	}
	logs := r.h.must("logs").stdout
	for _, id := range []string{"client-trace.7", made, replaced} {
		if !strings.Contains(logs, "req_id="+id+" ") {
			t.Errorf("no log line with req_id=%s:\n%s", id, logs)
		}
	}
}
