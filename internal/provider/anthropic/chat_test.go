package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/provider/providertest"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// Text streams to onText piece by piece and comes back whole, with the
// usage in beamclaw's terms: the prompt is the uncached input plus the
// cache reads and writes.
func TestChatStreamsTextAndCacheUsage(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Chunks: []string{"Hel", "lo ", "there."}, Usage: &fakellm.Usage{PromptTokens: 100, CompletionTokens: 7,
		Details: &fakellm.UsageDetails{CachedTokens: 60, CacheWriteTokens: 30}}})
	c, _ := newTestClient(t, srv)
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), userReq("hi"), got.Add)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if diff := cmp.Diff([]string{"Hel", "lo ", "there."}, got.Pieces()); diff != "" {
		t.Errorf("onText pieces (-want +got):\n%s", diff)
	}
	want := beamclaw.ChatResponse{Message: beamclaw.Message{Role: beamclaw.RoleAssistant, Content: "Hello there."},
		Usage: beamclaw.Usage{PromptTokens: 100, CompletionTokens: 7, TotalTokens: 107, CachedTokens: 60, CacheWriteTokens: 30},
		Model: "claude-test", FinishReason: "stop", Provider: "claude"}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	req := srv.Requests()[0]
	if req.Path != fakellm.PathMessages || !req.Stream || req.MaxTokens != beamclaw.DefaultAnswerCap {
		t.Errorf("request: path %s stream %v max_tokens %d; want the streamed Messages API with the default cap", req.Path, req.Stream, req.MaxTokens)
	}
	if auth := req.Header.Get("Authorization") + req.Header.Get("X-Api-Key"); !strings.Contains(auth, testKey) {
		t.Errorf("the configured key was not sent (headers %v)", req.Header)
	}
}

// A tool call streams as a tool_use block and comes back assembled, its
// input as the call's JSON arguments.
func TestChatAssemblesToolCalls(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Text: "Let me look.", ToolCalls: []fakellm.ToolCall{
		{Name: "read_file", Arguments: `{"path":"notes/today.md","limit":40}`}, {Name: "now", Arguments: `{}`}}})
	c, _ := newTestClient(t, srv)
	var got providertest.Collect
	resp, err := c.Chat(context.Background(), userReq("read it"), got.Add)
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message
	if m.Content != "Let me look." || got.Text() != "Let me look." || resp.FinishReason != "tool_calls" || len(m.ToolCalls) != 2 {
		t.Fatalf("response = %+v", resp)
	}
	tc := m.ToolCalls[0]
	if !strings.HasPrefix(tc.ID, "toolu_") || tc.Name != "read_file" || string(tc.Args) != `{"path":"notes/today.md","limit":40}` || tc.Source != "native" {
		t.Errorf("first call = %+v", tc)
	}
	if m.ToolCalls[1].Name != "now" || string(m.ToolCalls[1].Args) != "{}" {
		t.Errorf("second call = %+v", m.ToolCalls[1])
	}
}

// Failures map to the Kinds the chain decides on, with the provider's
// words and Retry-After, never the key or the request's text.
func TestChatErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reply  fakellm.Reply
		want   beamclaw.Kind
		retry  time.Duration
		status int
	}{
		{"invalid", fakellm.Reply{Status: 400, Error: "messages.0: bad"}, beamclaw.KindInvalid, 0, 400},
		{"context overflow", fakellm.Reply{Status: 400, Error: "prompt is too long: 210000 tokens > 200000 maximum"}, beamclaw.KindTooLarge, 0, 400},
		{"credit balance", fakellm.Reply{Status: 400, Error: "Your credit balance is too low to access the Anthropic API."}, beamclaw.KindUnauthorized, 0, 400},
		{"unauthorized", fakellm.Reply{Status: 401}, beamclaw.KindUnauthorized, 0, 401},
		{"billing", fakellm.Reply{Status: 402}, beamclaw.KindUnauthorized, 0, 402},
		{"permission", fakellm.Reply{Status: 403}, beamclaw.KindUnauthorized, 0, 403},
		{"rate limited", fakellm.Reply{Status: 429, RetryAfter: 7 * time.Second}, beamclaw.KindRateLimited, 7 * time.Second, 429},
		{"overloaded", fakellm.Reply{Status: fakellm.StatusOverloaded, RetryAfter: 3 * time.Second}, beamclaw.KindUnavailable, 3 * time.Second, 529},
		{"server error", fakellm.Reply{Status: 500}, beamclaw.KindUnavailable, 0, 500},
		{"overloaded mid-stream", fakellm.Reply{StreamError: fakellm.StatusOverloaded}, beamclaw.KindUnavailable, 0, 529},
		{"invalid mid-stream", fakellm.Reply{StreamError: 400, Error: "bad"}, beamclaw.KindInvalid, 0, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakellm.New(t)
			if tc.reply.Error != "" {
				tc.reply.Error += " " + testKey
			}
			srv.Script(tc.reply)
			c, _ := newTestClient(t, srv)
			_, err := c.Chat(context.Background(), userReq("secret body text"), nil)
			if got := beamclaw.KindOf(err); got != tc.want {
				t.Fatalf("kind = %v, want %v (err %v)", got, tc.want, err)
			}
			var se *provider.StatusError
			if !errors.As(err, &se) || se.Status != tc.status || beamclaw.RetryAfterOf(err) != tc.retry {
				t.Errorf("status error %+v, retry in %v; want status %d, retry in %v", se, beamclaw.RetryAfterOf(err), tc.status, tc.retry)
			}
			if s := err.Error(); strings.Contains(s, testKey) || strings.Contains(s, "secret body text") {
				t.Errorf("the error leaks the key or the request: %s", s)
			}
		})
	}
}

// Before the first token a 529 is retried after its retry-after; after
// text has reached the caller nothing is retried and the partial answer
// comes back with the error.
func TestChatRetriesOnlyBeforeTheFirstToken(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Status: fakellm.StatusOverloaded, RetryAfter: 2 * time.Second}, fakellm.Reply{Text: "finally"})
	c, sl := newTestClient(t, srv, func(o *Options) { o.MaxRetries = 2 })
	resp, err := c.Chat(context.Background(), userReq("q"), nil)
	if err != nil || resp.Message.Content != "finally" {
		t.Fatalf("Chat = %q, %v", resp.Message.Content, err)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second}, sl.Got()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	srv.Script(fakellm.Reply{Chunks: []string{"one ", "two ", "three"}, StreamError: fakellm.StatusOverloaded}, fakellm.Reply{Text: "again"})
	var got providertest.Collect
	resp, err = c.Chat(context.Background(), userReq("q"), got.Add)
	if beamclaw.KindOf(err) != beamclaw.KindUnavailable || got.Text() != "one two three" || resp.Message.Content != "one two three" {
		t.Fatalf("err %v, streamed %q, partial %q", err, got.Text(), resp.Message.Content)
	}
	if srv.Pending() != 1 {
		t.Error("retried after text reached the caller")
	}
	_, err = c.Chat(provider.WithoutRetries(context.Background()), userReq("q"), nil)
	if err != nil || srv.Pending() != 0 {
		t.Fatalf("the scripted answer after: %v", err)
	}
}

// A stream cut before message_stop is unavailable; a first token late is
// a timeout; the whole call has its own.
func TestChatBrokenAndLateStreams(t *testing.T) {
	srv := fakellm.New(t)
	hold := make(chan struct{})
	defer close(hold)
	srv.Script(fakellm.Reply{Chunks: []string{"a", "b", "c"}, BreakAfter: 2},
		fakellm.Reply{Text: "late", Hold: hold},
		fakellm.Reply{Chunks: []string{"a", "b"}, Hold: hold, HoldAfter: 1})
	c, _ := newTestClient(t, srv, func(o *Options) { o.FirstTokenTimeout = 100 * time.Millisecond })
	var got providertest.Collect
	_, err := c.Chat(context.Background(), userReq("q"), got.Add)
	if beamclaw.KindOf(err) != beamclaw.KindUnavailable || got.Text() != "ab" {
		t.Fatalf("broken stream: err %v after %q", err, got.Text())
	}
	_, err = c.Chat(context.Background(), userReq("q"), nil)
	if beamclaw.KindOf(err) != beamclaw.KindTimeout || !errors.Is(err, provider.ErrFirstToken) {
		t.Fatalf("late first token: err = %v", err)
	}
	c2, _ := newTestClient(t, srv, func(o *Options) { o.Timeout = 100 * time.Millisecond })
	got = providertest.Collect{}
	if _, err = c2.Chat(context.Background(), userReq("q"), got.Add); beamclaw.KindOf(err) != beamclaw.KindTimeout || got.Text() != "a" {
		t.Fatalf("whole call: err %v after %q", err, got.Text())
	}
}

// The registered kind builds a client named as configured, at Anthropic
// when no base_url is set; the environment's Anthropic variables change
// nothing (the key and URL are the config's).
func TestAdapterAndEnvironment(t *testing.T) {
	a := Adapter()
	if a.Kind != "anthropic" || a.BaseURL != DefaultBaseURL {
		t.Fatalf("adapter = %+v", a)
	}
	p, err := a.New(provider.Settings{Name: "claude", Kind: a.Kind, Model: "m"}, nil)
	if err != nil || p.Name() != "claude" {
		t.Fatalf("New = %v, %v", p, err)
	}
	if _, err := a.New(provider.Settings{Name: "x", BaseURL: "ftp://x"}, nil); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Fatalf("a base URL that is not http(s): %v", err)
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-the-environment")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Leak: yes")
	srv := fakellm.New(t)
	c, _ := newTestClient(t, srv)
	if _, err := c.Chat(context.Background(), userReq("q"), nil); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	h := srv.Requests()[0].Header
	if b, _ := json.Marshal(h); strings.Contains(string(b), "from-the-environment") || h.Get("X-Leak") != "" {
		t.Errorf("the environment reached the request: %v", h)
	}
}

// A health probe lists the models (no paid call): an answer is health, a
// 529 is not.
func TestProbe(t *testing.T) {
	srv := fakellm.New(t)
	srv.ScriptFor(fakellm.PathModels, fakellm.Reply{Status: fakellm.StatusOverloaded})
	c, _ := newTestClient(t, srv)
	if err := c.Probe(context.Background()); beamclaw.KindOf(err) != beamclaw.KindUnavailable {
		t.Fatalf("Probe of an overloaded API = %v, want unavailable", err)
	}
	if err := c.Probe(context.Background()); err != nil {
		t.Fatalf("Probe = %v", err)
	}
	var models int
	for _, r := range srv.AllRequests() {
		if r.Path == fakellm.PathModels {
			models++
		}
	}
	if models != 2 || len(srv.Requests()) != 0 {
		t.Errorf("%d model lists and %d chats, want 2 and none", models, len(srv.Requests()))
	}
}
