package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/provider/providertest"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func userReq(text string) beamclaw.ChatRequest {
	return beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: text}}}
}

func TestChatStreamsText(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Chunks: []string{"Hel", "lo ", "wor", "ld"},
		Usage: &fakellm.Usage{PromptTokens: 11, CompletionTokens: 4, TotalTokens: 15, Details: &fakellm.UsageDetails{CachedTokens: 8}}})
	c, _ := newTestClient(t, srv)
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), userReq("hi"), got.Add)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if diff := cmp.Diff([]string{"Hel", "lo ", "wor", "ld"}, got.Pieces()); diff != "" {
		t.Errorf("onText pieces (-want +got):\n%s", diff)
	}
	want := beamclaw.ChatResponse{
		Message:      beamclaw.Message{Role: beamclaw.RoleAssistant, Content: "Hello world"},
		Usage:        beamclaw.Usage{PromptTokens: 11, CompletionTokens: 4, TotalTokens: 15, CachedTokens: 8},
		Model:        "fake-model",
		FinishReason: "stop",
		Provider:     "fake",
	}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].Stream || !reqs[0].IncludeUsage || reqs[0].Model != "fake-model" {
		t.Fatalf("request = %+v, want one streamed request with include_usage", reqs)
	}
	if h := reqs[0].Header.Get("Authorization"); h != "Bearer sk-test-key-0123456789" {
		t.Errorf("Authorization = %q", h)
	}
}

func TestChatAssemblesNativeToolCalls(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Text: "Let me look.", ToolCalls: []fakellm.ToolCall{
		{ID: "call_a", Name: "read_file", Arguments: `{"path":"/tmp/some/long/file/name.txt","limit":100}`},
		{ID: "call_b", Name: "web_search", Arguments: `{"query":"weather in Lisbon tomorrow"}`},
		{ID: "call_c", Name: "broken", Arguments: `{"unterminated": `},
		{ID: "call_d", Name: "no_args", Arguments: ``},
	}})
	c, _ := newTestClient(t, srv)
	resp, err := c.Chat(context.Background(), userReq("go"), nil)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := []beamclaw.ToolCall{
		{ID: "call_a", Name: "read_file", Args: json.RawMessage(`{"path":"/tmp/some/long/file/name.txt","limit":100}`), Source: "native"},
		{ID: "call_b", Name: "web_search", Args: json.RawMessage(`{"query":"weather in Lisbon tomorrow"}`), Source: "native"},
		{ID: "call_c", Name: "broken", Args: json.RawMessage(`"{\"unterminated\":"`), Source: "native"},
		{ID: "call_d", Name: "no_args", Args: json.RawMessage(`{}`), Source: "native"},
	}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if resp.FinishReason != "tool_calls" || resp.Message.Content != "Let me look." {
		t.Errorf("finish %q content %q", resp.FinishReason, resp.Message.Content)
	}
}

func TestChatPassesXMLToolCallTextThrough(t *testing.T) {
	xml := `<tool_call><name>bash</name><args>{"cmd":"ls <dir>"}</args></tool_call>`
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Chunks: []string{xml[:7], xml[7:30], xml[30:]}})
	c, _ := newTestClient(t, srv)
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), userReq("x"), got.Add)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if resp.Message.Content != xml || got.Text() != xml || len(resp.Message.ToolCalls) != 0 {
		t.Errorf("content %q streamed %q calls %v, want the XML untouched", resp.Message.Content, got.Text(), resp.Message.ToolCalls)
	}
}

func TestChatStripsThinkingAcrossChunks(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{
		Reasoning: "hidden reasoning field",
		Chunks:    []string{"<th", "ink>secret ", "plan</thi", "nk>\n\nThe ", "answer <", "reasoning>x</reasoning>is 42"},
	})
	c, _ := newTestClient(t, srv)
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), userReq("q"), got.Add)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	const want = "The answer is 42"
	if resp.Message.Content != want || got.Text() != want {
		t.Errorf("content %q, streamed %q, want %q", resp.Message.Content, got.Text(), want)
	}
}

func TestChatReadsPlainJSONAnswer(t *testing.T) {
	// Some servers ignore stream:true and answer one JSON completion.
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m-1","choices":[{"index":0,
			"message":{"role":"assistant","content":"<think>hmm</think>Done.","reasoning_content":"r",
			"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},
			"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`)
	}))
	defer hs.Close()
	c, err := New(Options{Name: "plain", BaseURL: hs.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), userReq("q"), got.Add)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	want := beamclaw.ChatResponse{
		Message: beamclaw.Message{Role: beamclaw.RoleAssistant, Content: "Done.", ToolCalls: []beamclaw.ToolCall{
			{ID: "c1", Name: "f", Args: json.RawMessage(`{"a":1}`), Source: "native"}}},
		Usage: beamclaw.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5},
		Model: "m-1", FinishReason: "tool_calls", Provider: "plain",
	}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if got.Text() != "Done." {
		t.Errorf("streamed %q", got.Text())
	}
}

func TestChatMidStreamErrorEvent(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, ": OPENROUTER PROCESSING\n\n"+
			`data: {"error":{"message":"Provider returned error","code":429}}`+"\n\n")
	}))
	defer hs.Close()
	c, err := New(Options{Name: "or", BaseURL: hs.URL, Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	_, err = c.Chat(context.Background(), userReq("q"), nil)
	var se *provider.StatusError
	if beamclaw.KindOf(err) != beamclaw.KindRateLimited || !errors.As(err, &se) || se.Message != "Provider returned error" {
		t.Fatalf("err = %v, want rate limited with the provider message", err)
	}
}

func TestChatRetriesBeforeFirstToken(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(
		fakellm.Reply{Status: 429, RetryAfter: 2 * time.Second},
		fakellm.Reply{Drop: true},
		fakellm.Reply{Status: 503},
		fakellm.Reply{Text: "finally"},
	)
	c, sl := newTestClient(t, srv, func(o *Options) { o.MaxRetries = 3 })
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), userReq("q"), got.Add)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if resp.Message.Content != "finally" || got.Text() != "finally" {
		t.Errorf("content %q streamed %q", resp.Message.Content, got.Text())
	}
	want := []time.Duration{2 * time.Second, time.Second, 2 * time.Second}
	if diff := cmp.Diff(want, sl.Got()); diff != "" {
		t.Errorf("backoff waits (-want +got):\n%s", diff)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("requests = %d, want 4", n)
	}
}

// Without an injected Sleep, the wait between retries is a timer on the
// client's clock.
func TestChatBackoffWaitsOnTheClock(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Status: 503}, fakellm.Reply{Text: "after the wait"})
	clk := clock.NewFake(time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC))
	c, _ := newTestClient(t, srv, func(o *Options) {
		o.Sleep, o.Clock, o.MaxRetries, o.BackoffBase = nil, clk, 1, time.Second
	})
	type result struct {
		resp beamclaw.ChatResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := c.Chat(context.Background(), userReq("q"), nil)
		done <- result{resp, err}
	}()
	stop := make(chan struct{})
	defer close(stop)
	if !clk.WaitForWaiters(1, stop) {
		t.Fatal("no backoff timer on the clock")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("requests before the backoff passed = %d, want 1", n)
	}
	clk.Advance(time.Second)
	r := <-done
	if r.err != nil || r.resp.Message.Content != "after the wait" {
		t.Fatalf("Chat = %q, %v", r.resp.Message.Content, r.err)
	}
}

func TestChatGivesUpOnLongRetryAfter(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Status: 429, RetryAfter: time.Hour}, fakellm.Reply{Text: "unused"})
	c, sl := newTestClient(t, srv)
	_, err := c.Chat(context.Background(), userReq("q"), nil)
	if beamclaw.KindOf(err) != beamclaw.KindRateLimited {
		t.Fatalf("err = %v, want rate limited", err)
	}
	var se *provider.StatusError
	if !errors.As(err, &se) || se.RetryAfter != time.Hour || se.Status != 429 {
		t.Errorf("StatusError = %+v", se)
	}
	if len(sl.Got()) != 0 || srv.Pending() != 1 {
		t.Errorf("waited %v, pending %d: want no retry", sl.Got(), srv.Pending())
	}
}

func TestChatErrorKinds(t *testing.T) {
	tests := []struct {
		name   string
		status int
		want   beamclaw.Kind
	}{
		{"bad request", 400, beamclaw.KindInvalid},
		{"unauthorized", 401, beamclaw.KindUnauthorized},
		{"forbidden", 403, beamclaw.KindUnauthorized},
		{"rate limited", 429, beamclaw.KindRateLimited},
		{"server error", 500, beamclaw.KindUnavailable},
		{"overloaded", 529, beamclaw.KindUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.New(t)
			msg := "provider says no to sk-test-key-0123456789"
			srv.Script(fakellm.Reply{Status: tt.status, Error: msg})
			c, _ := newTestClient(t, srv, func(o *Options) { o.MaxRetries = -1 })
			_, err := c.Chat(context.Background(), userReq("secret body text"), nil)
			if got := beamclaw.KindOf(err); got != tt.want {
				t.Fatalf("kind = %v, want %v (err %v)", got, tt.want, err)
			}
			s := err.Error()
			if strings.Contains(s, "sk-test-key") || strings.Contains(s, "secret body text") {
				t.Errorf("error leaks key or body: %s", s)
			}
			if !strings.Contains(s, "provider says no") || !strings.Contains(s, "HTTP") {
				t.Errorf("error %q lacks status or provider message", s)
			}
		})
	}
}

func TestChatBrokenStreamAfterFirstTokenIsNotRetried(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Chunks: []string{"one ", "two ", "three"}, BreakAfter: 2}, fakellm.Reply{Text: "again"})
	c, sl := newTestClient(t, srv)
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), userReq("q"), got.Add)
	if beamclaw.KindOf(err) != beamclaw.KindUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
	if got.Text() != "one two " || resp.Message.Content != "one two " {
		t.Errorf("streamed %q partial %q, want exactly the text before the break", got.Text(), resp.Message.Content)
	}
	if len(sl.Got()) != 0 || srv.Pending() != 1 {
		t.Errorf("retried after text was emitted")
	}
}

func TestChatFirstTokenTimeout(t *testing.T) {
	srv := fakellm.New(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.Script(fakellm.Reply{Text: "late", Hold: hold, HoldAfter: 0})
	c, _ := newTestClient(t, srv, func(o *Options) { o.FirstTokenTimeout = 50 * time.Millisecond; o.MaxRetries = -1 })
	_, err := c.Chat(context.Background(), beamclaw.ChatRequest{Messages: userReq("q").Messages}, nil)
	if beamclaw.KindOf(err) != beamclaw.KindTimeout || !errors.Is(err, provider.ErrFirstToken) {
		t.Fatalf("err = %v, want first-token timeout", err)
	}
}

func TestChatWholeCallTimeout(t *testing.T) {
	srv := fakellm.New(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.Script(fakellm.Reply{Chunks: []string{"a", "b"}, Hold: hold, HoldAfter: 1})
	c, _ := newTestClient(t, srv, func(o *Options) { o.Timeout = 50 * time.Millisecond })
	var got providertest.Collect
	_, err := c.Chat(context.Background(), userReq("q"), got.Add)
	if beamclaw.KindOf(err) != beamclaw.KindTimeout || got.Text() != "a" {
		t.Fatalf("err = %v streamed %q, want timeout after \"a\"", err, got.Text())
	}
}

func TestChatConnectionRefused(t *testing.T) {
	srv := fakellm.Start()
	url := srv.URL()
	srv.Close()
	c, err := New(Options{BaseURL: url, Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), userReq("q"), nil)
	if beamclaw.KindOf(err) != beamclaw.KindUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
}

func TestNewValidates(t *testing.T) {
	for _, base := range []string{"", "ftp://x", "http://", "::"} {
		if _, err := New(Options{BaseURL: base}); beamclaw.KindOf(err) != beamclaw.KindInvalid {
			t.Errorf("New(%q) err = %v, want invalid", base, err)
		}
	}
	c, err := New(Options{BaseURL: "https://openrouter.ai/api/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "openrouter.ai" || c.t.headers.Get("X-Title") != "beamclaw" || c.t.headers.Get("HTTP-Referer") == "" {
		t.Errorf("openrouter defaults: name %q headers %v", c.Name(), c.t.headers)
	}
	if _, err := c.Chat(context.Background(), userReq("q"), nil); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("Chat without model err = %v, want invalid", err)
	}
}

// A stream whose body ends a moment after its [DONE] keeps its
// connection: the next calls reuse it instead of dialling (a TLS
// handshake with a real provider).
func TestChatKeepsTheConnectionAfterDone(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		_ = http.NewResponseController(w).Flush()
		time.Sleep(time.Millisecond) // the chunked body's end follows
	}))
	hs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	hs.Start()
	defer hs.Close()
	c, err := New(Options{Name: "keep", BaseURL: hs.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	for range 10 {
		if resp, err := c.Chat(context.Background(), userReq("q"), nil); err != nil || resp.Message.Content != "hi" {
			t.Fatalf("Chat = %q, %v", resp.Message.Content, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if conns != 1 {
		t.Errorf("10 calls opened %d connections, want 1", conns)
	}
}
