package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestOpenAIStream(t *testing.T) {
	tool := beamclaw.RunEvent{Type: beamclaw.EvToolStart, Tool: &beamclaw.ToolCall{Name: "calc"}}
	cases := []struct {
		name   string
		user   string
		events []beamclaw.RunEvent
		want   string
	}{
		{name: "chunks then final", events: []beamclaw.RunEvent{oaiChunk("Hello "), oaiChunk("world"), oaiFinal("Hello world", 3, 2)},
			want: "Hello world"},
		{name: "stored session", user: "gina", events: []beamclaw.RunEvent{oaiChunk("Hello "), oaiChunk("world"), oaiFinal("Hello world", 3, 2)},
			want: "Hello world"},
		{name: "final only", events: []beamclaw.RunEvent{oaiFinal("all at once", 3, 2)}, want: "all at once"},
		{name: "final adds a suffix", events: []beamclaw.RunEvent{oaiChunk("Partial "), oaiFinal("Partial\n\nI stopped.", 3, 2)},
			want: "Partial \n\nI stopped."},
		{name: "text before a tool", user: "gina",
			events: []beamclaw.RunEvent{oaiChunk("Let me check."), tool, oaiChunk("It is "), oaiChunk("4."), oaiFinal("It is 4.", 3, 2)},
			want:   "Let me check.\n\nIt is 4."},
		{name: "tool then final without chunks",
			events: []beamclaw.RunEvent{oaiChunk("Let me check."), tool, oaiFinal("It is 4.", 3, 2)},
			want:   "Let me check.\n\nIt is 4."},
		{name: "final differs from chunks", events: []beamclaw.RunEvent{oaiChunk("abc"), oaiFinal("xyz", 3, 2)}, want: "abc\n\nxyz"},
		{name: "a call refused before it ran", // needs an approval, or an unknown tool: a new model turn all the same
			events: []beamclaw.RunEvent{oaiChunk("Let me check."), {Type: beamclaw.EvToolResult, Tool: &beamclaw.ToolCall{Name: "nosuch"},
				Result: &beamclaw.ToolResult{Content: "unknown tool"}}, oaiChunk("I cannot."), oaiFinal("I cannot.", 3, 2)},
			want: "Let me check.\n\nI cannot."},
		{name: "a call needing an approval",
			events: []beamclaw.RunEvent{oaiChunk("Let me look."), {Type: beamclaw.EvNeedsApproval, Tool: &beamclaw.ToolCall{Name: "shell"}},
				oaiChunk("I could not."), oaiFinal("I could not.", 3, 2)},
			want: "Let me look.\n\nI could not.\n\n(The tool shell needed approval, which cannot be given over the OpenAI-compatible API, so it was denied.)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newOAIEnv(t, &oaiSessions{events: tc.events}, OpenAIOptions{}, Options{})
			params := openai.ChatCompletionNewParams{Model: "default",
				Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
				StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
			if tc.user != "" {
				params.User = openai.String(tc.user)
			}
			stream := env.client.Chat.Completions.NewStreaming(context.Background(), params)
			acc := openai.ChatCompletionAccumulator{}
			roles := 0
			for stream.Next() {
				c := stream.Current()
				if c.Object != "chat.completion.chunk" || c.Model != "default" {
					t.Errorf("chunk envelope %q %q", c.Object, c.Model)
				}
				if len(c.Choices) > 0 && c.Choices[0].Delta.Role != "" {
					roles++
				}
				acc.AddChunk(c)
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			if roles != 1 {
				t.Errorf("%d chunks carry the role, want the first only", roles)
			}
			if len(acc.Choices) != 1 {
				t.Fatalf("%d choices", len(acc.Choices))
			}
			if got := acc.Choices[0].Message.Content; got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
			if acc.Choices[0].FinishReason != "stop" {
				t.Errorf("finish reason %q", acc.Choices[0].FinishReason)
			}
			if acc.Usage.PromptTokens != 3 || acc.Usage.CompletionTokens != 2 || acc.Usage.TotalTokens != 5 {
				t.Errorf("usage %+v", acc.Usage)
			}
		})
	}
}

func TestOpenAIStreamWireFormat(t *testing.T) {
	fake := &oaiSessions{events: []beamclaw.RunEvent{oaiChunk("<b>&"), oaiFinal("<b>&", 1, 1)}}
	env := newOAIEnv(t, fake, OpenAIOptions{}, Options{})
	resp := env.post(t, `{"model":"beamclaw/coder","stream":true,"messages":[{"role":"user","content":"hi"}]}`, nil)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := sseLines(t, resp)
	if len(lines) != 4 {
		t.Fatalf("lines: %q", lines)
	}
	var first chatChunk
	if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[0], "data: ")), &first); err != nil {
		t.Fatal(err)
	}
	if first.Choices[0].Delta.Role != "assistant" || first.Choices[0].FinishReason != nil {
		t.Errorf("first chunk %s", lines[0])
	}
	if !strings.Contains(lines[1], `"content":"<b>&"`) || !strings.Contains(lines[1], `"finish_reason":null`) {
		t.Errorf("content chunk %s", lines[1])
	}
	if !strings.Contains(lines[2], `"delta":{},"finish_reason":"stop"`) || strings.Contains(lines[2], "usage") {
		t.Errorf("closing chunk %s", lines[2])
	}
	if lines[3] != "data: [DONE]" {
		t.Errorf("last line %q", lines[3])
	}
}

func TestOpenAIStreamRunError(t *testing.T) {
	events := []beamclaw.RunEvent{oaiChunk("I was "), {Type: beamclaw.EvError, Text: "the model provider failed; please retry"}}
	t.Run("sdk", func(t *testing.T) {
		env := newOAIEnv(t, &oaiSessions{events: events}, OpenAIOptions{}, Options{})
		stream := env.client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Model: "default", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		for stream.Next() {
		}
		if err := stream.Err(); err == nil || !strings.Contains(err.Error(), "the model provider failed") {
			t.Fatalf("stream error %v", err)
		}
	})
	t.Run("wire", func(t *testing.T) {
		env := newOAIEnv(t, &oaiSessions{events: events}, OpenAIOptions{}, Options{})
		resp := env.post(t, `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`, nil)
		defer resp.Body.Close()
		lines := sseLines(t, resp)
		n := len(lines)
		if n < 2 || lines[n-1] != "data: [DONE]" {
			t.Fatalf("lines %q", lines)
		}
		want := `data: {"error":{"message":"the model provider failed; please retry","type":"api_error","code":null,"param":null}}`
		if lines[n-2] != want {
			t.Errorf("error chunk\n%s\nwant\n%s", lines[n-2], want)
		}
	})
}

func TestOpenAIStreamKeepAlive(t *testing.T) {
	fake := &oaiSessions{events: []beamclaw.RunEvent{oaiChunk("slow "), oaiFinal("slow answer", 1, 1)}, hold: make(chan struct{})}
	env := newOAIEnv(t, fake, OpenAIOptions{KeepAlive: time.Millisecond}, Options{})
	resp := env.post(t, `{"model":"default","stream":true,"user":"hank","messages":[{"role":"user","content":"hi"}]}`, nil)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var text strings.Builder
	released := false
	defer func() {
		if !released {
			close(fake.hold)
		}
	}()
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended early (keep-alive seen: %v): %v", released, err)
		}
		if line == ": keep-alive\n" && !released {
			released = true
			close(fake.hold) // the run may end now
			continue
		}
		if line == "data: [DONE]\n" {
			break
		}
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok {
			continue
		}
		var c chatChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatal(err)
		}
		if c.Choices[0].Delta.Content != nil {
			text.WriteString(*c.Choices[0].Delta.Content)
		}
	}
	if text.String() != "slow answer" {
		t.Errorf("text %q, want the whole answer", text.String())
	}
}

func TestOpenAIStreamClientDisconnect(t *testing.T) {
	for _, user := range []string{"", "ivy"} {
		t.Run("user="+user, func(t *testing.T) {
			t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) }) // after the server closed
			fake := &oaiSessions{events: []beamclaw.RunEvent{oaiChunk("first "), oaiFinal("first and last", 1, 1)},
				hold: make(chan struct{})}
			env := newOAIEnv(t, fake, OpenAIOptions{}, Options{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			body := `{"model":"default","stream":true,"user":"` + user + `","messages":[{"role":"user","content":"hi"}]}`
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.url+"/v1/chat/completions", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := env.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(resp.Body)
			for got := ""; !strings.Contains(got, "first "); {
				if got, err = br.ReadString('\n'); err != nil {
					t.Fatal(err)
				}
			}
			cancel()
			resp.Body.Close()
			select {
			case <-env.handled:
			case <-time.After(10 * time.Second):
				t.Fatal("the handler did not return after the client went away")
			}
			close(fake.hold) // a stored run goes on and ends; its events are dropped
		})
	}
}
