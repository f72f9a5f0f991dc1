package fakellm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// claude returns the official Anthropic Go client pointed at srv (its
// root: Anthropic's paths start at /v1).
func claude(t *testing.T, srv *fakellm.Server) *anthropic.Client {
	t.Helper()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(hc.CloseIdleConnections)
	c := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(strings.TrimSuffix(srv.URL(), "/v1")),
		option.WithAPIKey("sk-ant-fake"), option.WithHTTPClient(hc), option.WithMaxRetries(0))
	return &c
}

func userText(s string) anthropic.MessageParam {
	return anthropic.NewUserMessage(anthropic.NewTextBlock(s))
}

// A streamed answer reads back whole through the SDK's accumulator, with
// the scripted cache usage as Anthropic's cache fields; the system blocks
// reach the recorded request as its system message.
func TestClaudeStreamTextAndCacheUsage(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Text: "Hello from the fake.", Usage: &fakellm.Usage{PromptTokens: 100, CompletionTokens: 7,
		Details: &fakellm.UsageDetails{CachedTokens: 60, CacheWriteTokens: 30}}})
	stream := claude(t, srv).Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 256,
		System:   []anthropic.TextBlockParam{{Text: "stable", CacheControl: anthropic.NewCacheControlEphemeralParam()}, {Text: "per user"}},
		Messages: []anthropic.MessageParam{userText("hi")},
	})
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	_ = stream.Close()
	if len(msg.Content) != 1 || msg.Content[0].Text != "Hello from the fake." || msg.StopReason != "end_turn" {
		t.Fatalf("message = %+v", msg)
	}
	u := msg.Usage
	if u.InputTokens != 10 || u.CacheReadInputTokens != 60 || u.CacheCreationInputTokens != 30 || u.OutputTokens != 7 {
		t.Errorf("usage = input %d, read %d, write %d, output %d; want 10, 60, 30, 7",
			u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens)
	}
	got := srv.Requests()[0]
	want := []fakellm.Message{{Role: "system", Content: "stable\nper user"}, {Role: "user", Content: "hi", Parts: []fakellm.Part{{Type: "text", Text: "hi"}}}}
	if diff := cmp.Diff(want, got.Messages); diff != "" || got.Path != fakellm.PathMessages || !got.Stream || got.MaxTokens != 256 {
		t.Errorf("recorded %+v; messages (-want +got):\n%s", got, diff)
	}
	if !strings.Contains(string(got.Body), `"cache_control":{"type":"ephemeral"}`) {
		t.Errorf("the raw body lost the cache breakpoint: %s", got.Body)
	}
}

// The Rules drive a tool round on the Anthropic wire: "call tool" is a
// tool_use block, and its tool_result is answered "tool NAME said".
func TestClaudeToolRound(t *testing.T) {
	srv := fakellm.New(t)
	srv.SetDefault(fakellm.Rules)
	c := claude(t, srv)
	ctx := context.Background()
	first := userText(`call tool read_file {"path":"a.txt"}`)
	msg, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 256, Messages: []anthropic.MessageParam{first},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "read_file", InputSchema: anthropic.ToolInputSchemaParam{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != "tool_use" || len(msg.Content) != 1 || msg.Content[0].Type != "tool_use" || string(msg.Content[0].Input) != `{"path":"a.txt"}` {
		t.Fatalf("message = %+v", msg)
	}
	call := msg.Content[0]
	if !strings.HasPrefix(call.ID, "toolu_") {
		t.Errorf("tool_use id %q, want Anthropic's toolu_ prefix", call.ID)
	}
	msg, err = c.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 256, Messages: []anthropic.MessageParam{
		first,
		anthropic.NewAssistantMessage(anthropic.NewToolUseBlock(call.ID, json.RawMessage(call.Input), call.Name)),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(call.ID, "file body", false)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content[0].Text != "tool read_file said: file body" || msg.StopReason != "end_turn" {
		t.Fatalf("message = %+v", msg)
	}
	if tools := srv.Requests()[0].Tools; len(tools) != 1 || tools[0].Name != "read_file" {
		t.Errorf("recorded tools = %+v", tools)
	}
}

// With thinking enabled a thinking block (with its signature) streams
// before the text; a budget Anthropic refuses is refused.
func TestClaudeThinking(t *testing.T) {
	srv := fakellm.New(t)
	c := claude(t, srv)
	stream := c.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 2048, Messages: []anthropic.MessageParam{userText("ponder")},
		Thinking: anthropic.ThinkingConfigParamOfEnabled(1024),
	})
	var msg anthropic.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	_ = stream.Close()
	if len(msg.Content) != 2 || msg.Content[0].Type != "thinking" || msg.Content[0].Thinking != fakellm.DefaultThinking ||
		msg.Content[0].Signature == "" || msg.Content[1].Text != "echo: ponder" {
		t.Fatalf("content = %+v", msg.Content)
	}
	if srv.Requests()[0].Thinking != 1024 {
		t.Errorf("recorded thinking budget = %d", srv.Requests()[0].Thinking)
	}
	_, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 1024, Messages: []anthropic.MessageParam{userText("x")},
		Thinking: anthropic.ThinkingConfigParamOfEnabled(1024),
	})
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Type() != "invalid_request_error" {
		t.Fatalf("budget not under max_tokens: err = %v", err)
	}
}

// A scripted 529 is Anthropic's overloaded error with its retry-after; a
// scripted StreamError ends a stream with an error event.
func TestClaudeErrors(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Status: fakellm.StatusOverloaded, RetryAfter: 3 * time.Second},
		fakellm.Reply{Chunks: []string{"partial "}, StreamError: fakellm.StatusOverloaded, Error: "busy"})
	c := claude(t, srv)
	params := anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 64, Messages: []anthropic.MessageParam{userText("x")}}
	_, err := c.Messages.New(context.Background(), params)
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 529 || apiErr.Type() != "overloaded_error" || apiErr.Response.Header.Get("Retry-After") != "3" {
		t.Fatalf("529: err = %v", err)
	}
	stream := c.Messages.NewStreaming(context.Background(), params)
	var text string
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "content_block_delta" {
			text += ev.Delta.Text
		}
	}
	_ = stream.Close()
	if !errors.As(stream.Err(), &apiErr) || apiErr.Type() != "overloaded_error" || apiErr.Message != "busy" || text != "partial " {
		t.Fatalf("stream error = %v after %q", stream.Err(), text)
	}
}

// An image block is recorded as a data URL part; what Anthropic refuses
// (roles that do not alternate, a tool_result without its tool_use, no
// max_tokens) is a 400 invalid_request_error.
func TestClaudeRequestShapes(t *testing.T) {
	srv := fakellm.New(t)
	c := claude(t, srv)
	ctx := context.Background()
	_, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 64, Messages: []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("what is this?"), anthropic.NewImageBlockBase64("image/png", "iVBORw0K")),
	}})
	if err != nil {
		t.Fatal(err)
	}
	parts := srv.Requests()[0].Messages[0].Parts
	if len(parts) != 2 || parts[1].Type != "image" || parts[1].ImageURL != "data:image/png;base64,iVBORw0K" {
		t.Errorf("parts = %+v", parts)
	}
	for name, msgs := range map[string][]anthropic.MessageParam{
		"two user messages": {userText("a"), userText("b")},
		"orphan result":     {userText("a"), anthropic.NewAssistantMessage(anthropic.NewTextBlock("b")), anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_x", "r", false))},
	} {
		_, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: "m", MaxTokens: 64, Messages: msgs})
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Type() != "invalid_request_error" {
			t.Errorf("%s: err = %v, want 400 invalid_request_error", name, err)
		}
	}
	res, err := http.Post(strings.TrimSuffix(srv.URL(), "/v1")+fakellm.PathMessages, "application/json",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("no max_tokens: status %d, want 400", res.StatusCode)
	}
}
