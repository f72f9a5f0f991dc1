package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

func TestOpenAIPlainCompletionEphemeral(t *testing.T) {
	fake := &oaiSessions{events: []beamclaw.RunEvent{
		{Type: beamclaw.EvState, Text: "streaming"},
		oaiChunk("Hello "), oaiChunk("there"),
		{Type: beamclaw.EvToolStart, Tool: &beamclaw.ToolCall{Name: "web_search"}},
		oaiFinal("Hello there, Ada.", 12, 5),
	}}
	now := time.Unix(1_700_000_000, 0)
	env := newOAIEnv(t, fake, OpenAIOptions{Clock: clock.NewFake(now)}, Options{})
	resp, err := env.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "beamclaw/coder",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("be brief"),
			openai.UserMessage("my name is Ada"),
			openai.AssistantMessage("noted"),
			openai.UserMessage("greet me"),
		},
		Temperature: openai.Float(0.2),
		MaxTokens:   openai.Int(100),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.ID, "chatcmpl-") || resp.Object != "chat.completion" || resp.Created != now.Unix() {
		t.Errorf("envelope: id %q object %q created %d", resp.ID, resp.Object, resp.Created)
	}
	if resp.Model != "beamclaw/coder" {
		t.Errorf("model %q, want the requested one echoed", resp.Model)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("%d choices", len(resp.Choices))
	}
	c := resp.Choices[0]
	if c.Message.Content != "Hello there, Ada." || c.Message.Role != "assistant" || c.FinishReason != "stop" || c.Index != 0 {
		t.Errorf("choice: %+v", c)
	}
	if resp.Usage.PromptTokens != 12 || resp.Usage.CompletionTokens != 5 || resp.Usage.TotalTokens != 17 {
		t.Errorf("usage: %+v", resp.Usage)
	}
	want := []beamclaw.Message{
		{Role: beamclaw.RoleSystem, Content: "be brief"},
		{Role: beamclaw.RoleUser, Content: "my name is Ada"},
		{Role: beamclaw.RoleAssistant, Content: "noted"},
		{Role: beamclaw.RoleUser, Content: "greet me"},
	}
	if diff := cmp.Diff(want, fake.lastHistory(t)); diff != "" {
		t.Errorf("ephemeral history (-want +got):\n%s", diff)
	}
	if fake.agents[0] != "coder" {
		t.Errorf("agent %q, want coder", fake.agents[0])
	}
}

func TestOpenAIUserIDSendsTheNewMessageWithTheClientsCopy(t *testing.T) {
	cases := []struct {
		name    string
		opts    []option.RequestOption
		user    string
		userID  func(prefix, id string) string
		want    string
		wantOut string
	}{
		{name: "user field", user: "alice", want: "api:alice"},
		{name: "header", opts: []option.RequestOption{option.WithHeader("X-User-Id", "bob")}, want: "api:bob"},
		{name: "header wins over field", user: "alice",
			opts: []option.RequestOption{option.WithHeader("X-User-Id", "bob")}, want: "api:bob"},
		{name: "BEAMCLAW_USER applied", user: "alice",
			userID: func(string, string) string { return "me" }, want: "me"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := &oaiSessions{events: []beamclaw.RunEvent{oaiFinal("hi again", 1, 1)}}
			env := newOAIEnv(t, fake, OpenAIOptions{UserID: tc.userID}, Options{})
			params := openai.ChatCompletionNewParams{Model: "default", Messages: []openai.ChatCompletionMessageParamUnion{
				openai.UserMessage("old question"), openai.AssistantMessage("old answer"), openai.UserMessage("new question"),
			}}
			if tc.user != "" {
				params.User = openai.String(tc.user)
			}
			resp, err := env.client.Chat.Completions.New(context.Background(), params, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Choices[0].Message.Content; got != "hi again" {
				t.Errorf("answer %q", got)
			}
			in := fake.lastInbound(t)
			in.Route = nil
			copyOf := []beamclaw.Message{{Role: "user", Content: "old question"}, {Role: "assistant", Content: "old answer"}}
			want := beamclaw.Inbound{Channel: "http", UserID: tc.want, AgentID: "default", Content: "new question", NoApproval: true, AckOnAnswer: true,
				Transcript: &beamclaw.Transcript{Messages: copyOf, Key: transcriptKey([]chatMessage{
					{Role: "user", Content: chatContent{Text: "old question"}}, {Role: "assistant", Content: chatContent{Text: "old answer"}}})}}
			if diff := cmp.Diff(want, in); diff != "" {
				t.Errorf("inbound (-want +got):\n%s", diff)
			}
			// The turn is marked with the copy the client holds now.
			next := transcriptKey([]chatMessage{{Role: "user", Content: chatContent{Text: "old question"}},
				{Role: "assistant", Content: chatContent{Text: "old answer"}}, {Role: "user", Content: chatContent{Text: "new question"}},
				{Role: "assistant", Content: chatContent{Text: "hi again"}}})
			fake.mu.Lock()
			marks := fake.marks
			fake.mu.Unlock()
			if len(marks) != 1 || !strings.HasSuffix(marks[0], " "+next) {
				t.Errorf("marks %v, want one ending %s", marks, next)
			}
		})
	}
}

func TestOpenAIImageDataURL(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake image bytes")
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	msg := openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
		openai.TextContentPart("what is"),
		openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url}),
		openai.TextContentPart("in this picture?"),
	})
	wantAtt := []beamclaw.Attachment{{MIME: "image/png", Data: png}}
	for _, user := range []string{"", "carol"} {
		t.Run("user="+user, func(t *testing.T) {
			fake := &oaiSessions{events: []beamclaw.RunEvent{oaiFinal("a cat", 1, 1)}}
			env := newOAIEnv(t, fake, OpenAIOptions{}, Options{})
			params := openai.ChatCompletionNewParams{Model: "coder", Messages: []openai.ChatCompletionMessageParamUnion{msg}}
			if user != "" {
				params.User = openai.String(user)
			}
			if _, err := env.client.Chat.Completions.New(context.Background(), params); err != nil {
				t.Fatal(err)
			}
			var content string
			var atts []beamclaw.Attachment
			if user == "" {
				m := fake.lastHistory(t)[0]
				content, atts = m.Content, m.Attachments
			} else {
				in := fake.lastInbound(t)
				content, atts = in.Content, in.Attachments
			}
			if content != "what is\nin this picture?" {
				t.Errorf("content %q", content)
			}
			if diff := cmp.Diff(wantAtt, atts); diff != "" {
				t.Errorf("attachments (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenAIUnknownModel(t *testing.T) {
	fake := &oaiSessions{}
	env := newOAIEnv(t, fake, OpenAIOptions{}, Options{})
	for _, model := range []string{"gpt-4o", "beamclaw/nobody", "beamclaw/"} {
		_, err := env.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model: model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("%s: error %v, want an API error", model, err)
		}
		if apiErr.StatusCode != http.StatusNotFound || apiErr.Code != "model_not_found" ||
			apiErr.Param != "model" || apiErr.Type != "invalid_request_error" {
			t.Errorf("%s: status %d code %q param %q type %q", model, apiErr.StatusCode, apiErr.Code, apiErr.Param, apiErr.Type)
		}
	}
}

func TestOpenAIModels(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	env := newOAIEnv(t, &oaiSessions{}, OpenAIOptions{Clock: clock.NewFake(now)}, Options{})
	page, err := env.client.Models.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID)
		if m.Object != "model" || m.OwnedBy != "beamclaw" || m.Created != now.Unix() {
			t.Errorf("model %+v", m)
		}
	}
	if diff := cmp.Diff([]string{"default", "beamclaw/default", "beamclaw/coder"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

func TestOpenAIBadRequests(t *testing.T) {
	cases := []struct {
		name, body string
		header     map[string]string
		status     int
		param      string
		msg        string
	}{
		{name: "malformed JSON", body: `{"model":"default","messages":[}`, status: 400, msg: "malformed JSON at offset"},
		{name: "wrong type", body: `{"model":"default","messages":"hi"}`, status: 400, param: "messages", msg: "offset"},
		{name: "no model", body: `{"messages":[{"role":"user","content":"hi"}]}`, status: 400, param: "model"},
		{name: "no messages", body: `{"model":"default","messages":[]}`, status: 400, param: "messages"},
		{name: "a function named like the agent's tool", status: 400, param: "tools[0].name", msg: "the agent has its own tool named \"shell\"",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"shell"}}]}`},
		{name: "a tool that is not a function", status: 400, param: "tools[0].type", msg: "only function tools are",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"web_search"}]}`},
		{name: "a function without a name", status: 400, param: "tools[0].name",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"parameters":{}}}]}`},
		{name: "parameters not an object", status: 400, param: "tools[0].parameters",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":[1]}}]}`},
		{name: "tool_choice names no declared function", status: 400, param: "tool_choice", msg: "is not among the request's tools",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"g"}}}`},
		{name: "tool_choice without tools", status: 400, param: "tool_choice",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"tool_choice":"required"}`},
		{name: "a tool result after no call", status: 400, param: "messages", msg: "must follow the assistant message",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c1","content":"x"}]}`},
		{name: "a tool result without its call id", status: 400, param: "messages[2].tool_call_id",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"x"}]}`},
		{name: "legacy functions", status: 400, param: "functions",
			body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"functions":[{"name":"f"}]}`},
		{name: "n>1", body: `{"model":"default","n":2,"messages":[{"role":"user","content":"hi"}]}`, status: 400, param: "n"},
		{name: "last not user with user id", status: 400, param: "messages", msg: "last message must be from the user",
			header: map[string]string{"X-User-Id": "dave"},
			body:   `{"model":"default","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}`},
		{name: "bad role", body: `{"model":"default","messages":[{"role":"wizard","content":"x"},{"role":"user","content":"hi"}]}`,
			status: 400, param: "messages[0].role"},
		{name: "remote image", status: 400, param: "messages[0].content[0]", msg: "only data: URLs",
			body: `{"model":"default","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"http://169.254.169.254/x.png"}}]}]}`},
		{name: "content number", body: `{"model":"default","messages":[{"role":"user","content":5}]}`, status: 400, param: "messages"},
		{name: "temperature string", body: `{"model":"default","temperature":"hot","messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "temperature", msg: "expected a number, but got a string"},
		{name: "temperature above 2", body: `{"model":"default","temperature":2.5,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "temperature", msg: "Expected a value <= 2, but got 2.5"},
		{name: "top_p below 0", body: `{"model":"default","top_p":-0.1,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "top_p", msg: "value below minimum"},
		{name: "max_tokens zero", body: `{"model":"default","max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "max_tokens"},
		{name: "max_tokens fraction", body: `{"model":"default","max_tokens":1.5,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "max_tokens", msg: "expected an integer"},
		{name: "both max tokens", body: `{"model":"default","max_tokens":5,"max_completion_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "max_tokens"},
		{name: "five stops", body: `{"model":"default","stop":["a","b","c","d","e"],"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "stop"},
		{name: "stop number", body: `{"model":"default","stop":5,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "stop"},
		{name: "seed string", body: `{"model":"default","seed":"x","messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "seed"},
		{name: "penalty", body: `{"model":"default","presence_penalty":3,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "presence_penalty"},
		{name: "response_format type", body: `{"model":"default","response_format":{"type":"yaml"},"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "response_format.type"},
		{name: "json_schema without name", body: `{"model":"default","response_format":{"type":"json_schema","json_schema":{"schema":{}}},"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "response_format.json_schema"},
		{name: "reasoning_effort", body: `{"model":"default","reasoning_effort":"max","messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "reasoning_effort"},
		{name: "parallel_tool_calls string", body: `{"model":"default","parallel_tool_calls":"yes","messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "parallel_tool_calls", msg: "expected a boolean"},
		{name: "stream_options without stream", body: `{"model":"default","stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "stream_options"},
		{name: "logprobs", body: `{"model":"default","logprobs":true,"messages":[{"role":"user","content":"hi"}]}`,
			status: 400, param: "logprobs"},
		{name: "oversized", body: `{"model":"default","messages":[{"role":"user","content":"` + strings.Repeat("x", 700) + `"}]}`,
			status: 413},
	}
	env := newOAIEnv(t, &oaiSessions{}, OpenAIOptions{ToolNames: func(string) []string { return []string{"shell"} }}, Options{MaxBodyBytes: 600})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := env.post(t, tc.body, tc.header)
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatalf("body is not OpenAI error JSON: %v", err)
			}
			if resp.StatusCode != tc.status || e.Error.Type != "invalid_request_error" {
				t.Fatalf("status %d type %q (%s), want %d", resp.StatusCode, e.Error.Type, e.Error.Message, tc.status)
			}
			if tc.param != "" && (e.Error.Param == nil || *e.Error.Param != tc.param) {
				t.Errorf("param %v, want %q", e.Error.Param, tc.param)
			}
			if !strings.Contains(e.Error.Message, tc.msg) {
				t.Errorf("message %q lacks %q", e.Error.Message, tc.msg)
			}
		})
	}
}

func TestOpenAISessionErrors(t *testing.T) {
	cases := []struct {
		name   string
		fake   *oaiSessions
		user   string
		status int
		msg    string
	}{
		{name: "send unavailable", user: "erin", status: http.StatusBadGateway, msg: "could not store the message",
			fake: &oaiSessions{sendErr: beamclaw.E("session.Send", beamclaw.KindUnavailable, "could not store the message", io.ErrClosedPipe)}},
		{name: "send invalid", user: "erin", status: http.StatusBadRequest, msg: "a message needs a user and an agent",
			fake: &oaiSessions{sendErr: beamclaw.E("session.Send", beamclaw.KindInvalid, "a message needs a user and an agent", nil)}},
		{name: "run error event", status: http.StatusBadGateway, msg: "the model provider failed; please retry",
			fake: &oaiSessions{events: []beamclaw.RunEvent{oaiChunk("par"), {Type: beamclaw.EvError, Text: "the model provider failed; please retry"}}}},
		{name: "ephemeral returns error only", status: http.StatusGatewayTimeout, msg: "too slow",
			fake: &oaiSessions{ephErr: beamclaw.E("loop", beamclaw.KindTimeout, "too slow", context.DeadlineExceeded)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newOAIEnv(t, tc.fake, OpenAIOptions{}, Options{})
			params := openai.ChatCompletionNewParams{Model: "default",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
			if tc.user != "" {
				params.User = openai.String(tc.user)
			}
			_, err := env.client.Chat.Completions.New(context.Background(), params)
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v, want an API error", err)
			}
			if apiErr.StatusCode != tc.status || apiErr.Message != tc.msg {
				t.Errorf("status %d message %q, want %d %q", apiErr.StatusCode, apiErr.Message, tc.status, tc.msg)
			}
		})
	}
}

func TestOpenAIApprovalDeniedNote(t *testing.T) {
	fake := &oaiSessions{events: []beamclaw.RunEvent{
		{Type: beamclaw.EvNeedsApproval, Tool: &beamclaw.ToolCall{ID: "c1", Name: "shell"}, Text: "denied: tool shell needs approval"},
		{Type: beamclaw.EvToolStart, Tool: &beamclaw.ToolCall{ID: "c2", Name: "read_file"}}, // ran: no note
		oaiFinal("I could not list the files.", 1, 1),
	}}
	env := newOAIEnv(t, fake, OpenAIOptions{}, Options{})
	resp, err := env.client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "default", User: openai.String("frank"),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("ls")}})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Choices[0].Message.Content
	want := "I could not list the files.\n\n(The tool shell needed approval, which cannot be given over the OpenAI-compatible API, so it was denied.)"
	if got != want {
		t.Errorf("answer:\n%q\nwant\n%q", got, want)
	}
}

func TestOpenAISamplingReachesTheRun(t *testing.T) {
	fake := &oaiSessions{events: []beamclaw.RunEvent{{Type: beamclaw.EvFinal, Text: "ok"}}}
	env := newOAIEnv(t, fake, OpenAIOptions{}, Options{})
	resp := env.post(t, `{"model":"default","messages":[{"role":"user","content":"hi"}],
		"temperature":0.2,"top_p":0.9,"max_completion_tokens":64,"stop":"END","seed":7,
		"presence_penalty":0.5,"frequency_penalty":-0.5,"reasoning_effort":"low","parallel_tool_calls":false,
		"response_format":{"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	fake.wg.Wait()
	fake.mu.Lock()
	if len(fake.samplings) != 1 || fake.samplings[0] == nil {
		t.Fatalf("samplings %+v", fake.samplings)
	}
	s := fake.samplings[0]
	f := func(v float64) *float64 { return &v }
	seed, no := int64(7), false
	want := &beamclaw.Sampling{Temperature: f(0.2), TopP: f(0.9), MaxTokens: 64, Stop: []string{"END"}, Seed: &seed,
		PresencePenalty: f(0.5), FrequencyPenalty: f(-0.5), ReasoningEffort: "low", ParallelToolCalls: &no,
		ResponseFormat: json.RawMessage(`{"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}`)}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("sampling (-want +got):\n%s", diff)
	}

	fake.mu.Unlock()

	// Nothing set: nil, the provider's defaults.
	resp = env.post(t, `{"model":"default","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"text"}}`, nil)
	resp.Body.Close()
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.samplings) != 2 || fake.samplings[1] != nil {
		t.Errorf("unset controls became %+v", fake.samplings[len(fake.samplings)-1])
	}
}

func TestOpenAIModelRetrieve(t *testing.T) {
	env := newOAIEnv(t, &oaiSessions{}, OpenAIOptions{}, Options{})
	for _, id := range []string{"default", "beamclaw/coder"} {
		m, err := env.client.Models.Get(context.Background(), id)
		if err != nil {
			t.Fatalf("retrieve %s: %v", id, err)
		}
		if m.ID != id || m.OwnedBy != "beamclaw" {
			t.Errorf("retrieve %s: %+v", id, m)
		}
	}
	_, err := env.client.Models.Get(context.Background(), "beamclaw/nobody")
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || apiErr.Code != "model_not_found" {
		t.Errorf("unknown model: %v", err)
	}
}

func TestOpenAIRateLimitedEverywhereIs429(t *testing.T) {
	limited := beamclaw.RunEvent{Type: beamclaw.EvError, Text: "the model provider is rate limiting requests; try again shortly",
		Kind: beamclaw.KindRateLimited, RetryAfter: 1500 * time.Millisecond}
	for _, stream := range []bool{false, true} {
		env := newOAIEnv(t, &oaiSessions{events: []beamclaw.RunEvent{limited}}, OpenAIOptions{}, Options{})
		body := `{"model":"default","messages":[{"role":"user","content":"hi"}],"stream":` + strconv.FormatBool(stream) + `}`
		resp := env.post(t, body, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
			t.Errorf("stream=%v: status %d Retry-After %q, want 429 and 2", stream, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
}

func TestCORSOnlyForConfiguredOrigins(t *testing.T) {
	env := newOAIEnv(t, &oaiSessions{}, OpenAIOptions{}, Options{Token: strings.Repeat("t", 32),
		CORSOrigins: []string{"https://chat.example.com"}})
	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, env.url+"/v1/chat/completions", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		resp, err := env.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	ok := preflight("https://chat.example.com")
	if ok.StatusCode != http.StatusNoContent || ok.Header.Get("Access-Control-Allow-Origin") != "https://chat.example.com" ||
		!strings.Contains(ok.Header.Get("Access-Control-Allow-Headers"), "authorization") {
		t.Errorf("allowed preflight: %d %v", ok.StatusCode, ok.Header)
	}
	if m := ok.Header.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "DELETE") { // DELETE /v1/responses/{id}
		t.Errorf("allowed methods %q, want DELETE among them", m)
	}
	foreign := preflight("https://evil.example")
	if foreign.StatusCode != http.StatusForbidden || foreign.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign preflight: %d %v", foreign.StatusCode, foreign.Header)
	}
	// A real request from the allowed origin still needs the token, and
	// its answer carries the CORS header.
	req, _ := http.NewRequest(http.MethodGet, env.url+"/v1/models", nil)
	req.Header.Set("Origin", "https://chat.example.com")
	resp, err := env.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != "https://chat.example.com" {
		t.Errorf("request without token: %d %v", resp.StatusCode, resp.Header)
	}
}
