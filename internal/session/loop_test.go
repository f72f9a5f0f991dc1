package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

func TestMaxToolIterations(t *testing.T) {
	tl := &echoTool{name: "look"}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}, loop: func(o *loop.Options) { o.MaxToolIterations = 2 }})
	for i := range 5 {
		e.p.add(callTool("look", fmt.Sprintf(`{"text":"%d"}`, i)))
	}
	r, _ := e.send(t, "local:ana", "go")
	ev := r.wait(t)
	if ev.Type != beamclaw.EvFinal || !strings.Contains(ev.Text, "limit of 2 tool iterations") {
		t.Fatalf("got %s %q", ev.Type, ev.Text)
	}
	if n := tl.runs.Load(); n != 2 {
		t.Errorf("tool ran %d times, want 2", n)
	}
}

func TestRepeatedIdenticalCallsAbort(t *testing.T) {
	tl := &echoTool{name: "look"}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	for range 5 {
		e.p.add(callTool("look", `{"text":"same"}`))
	}
	r, _ := e.send(t, "local:ana", "go")
	ev := r.wait(t)
	if ev.Type != beamclaw.EvFinal || !strings.Contains(ev.Text, "identical arguments 3 times in a row") {
		t.Fatalf("got %s %q", ev.Type, ev.Text)
	}
	if n := tl.runs.Load(); n != 2 {
		t.Errorf("tool ran %d times, want 2", n)
	}
	h, _ := e.m.History(e.sid("local:ana"))
	if last := h[len(h)-1]; last.Role != beamclaw.RoleAssistant || len(last.ToolCalls) != 0 {
		t.Errorf("history ends with %+v, want the final answer", last)
	}
}

func TestScrubsToolResultsAndProviderText(t *testing.T) {
	const secret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	tl := &echoTool{name: "env", output: "OPENAI_API_KEY=" + secret}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	e.p.add(callTool("env", `{"text":"`+secret+`"}`), say("the key is "+secret+" ok"))
	r, _ := e.send(t, "local:ana", "go")
	r.wait(t)
	h, _ := e.m.History(e.sid("local:ana"))
	for _, m := range h {
		if strings.Contains(m.Content, secret) || (len(m.ToolCalls) > 0 && strings.Contains(string(m.ToolCalls[0].Args), secret)) {
			t.Errorf("secret stored in history: %+v", m)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range r.events {
		if strings.Contains(ev.Text, secret) || (ev.Tool != nil && strings.Contains(string(ev.Tool.Args), secret)) ||
			(ev.Result != nil && strings.Contains(ev.Result.Content, secret)) {
			t.Errorf("secret delivered: %+v", ev)
		}
	}
	for _, req := range e.p.requests()[1:] {
		if strings.Contains(req.System, secret) {
			t.Errorf("secret sent to the model in the system prompt")
		}
		for _, m := range req.Messages {
			if strings.Contains(m.Content, secret) {
				t.Errorf("secret sent to the model: %+v", m)
			}
		}
	}
}

func TestProviderErrorIsOneError(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.p.add(func(context.Context, beamclaw.ChatRequest, func(string)) (beamclaw.ChatResponse, error) {
		return beamclaw.ChatResponse{}, beamclaw.E("openai", beamclaw.KindRateLimited, "the model is rate limited; try again shortly", errors.New("429"))
	})
	r, _ := e.send(t, "local:ana", "go")
	if ev := r.wait(t); ev.Type != beamclaw.EvError || ev.Text != "the model is rate limited; try again shortly" {
		t.Errorf("got %s %q", ev.Type, ev.Text)
	}
}

func TestCompaction(t *testing.T) {
	big := strings.Repeat("x", 400) // 100 tokens
	cases := []struct {
		name    string
		summary step
		after   int64
		want    []string
	}{
		{"summary", say("they talked about x"), 2, []string{
			"system:" + loop.SummaryPrefix + "they talked about x", "user:" + big, "assistant:echo: " + big,
			"user:" + big, "assistant:echo: " + big}},
		{"failing summary trims", func(context.Context, beamclaw.ChatRequest, func(string)) (beamclaw.ChatResponse, error) {
			return beamclaw.ChatResponse{}, errors.New("summary model down")
		}, 1, []string{"user:" + big, "assistant:echo: " + big, "user:" + big, "assistant:echo: " + big}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOpts{p: &scripted{summary: tc.summary}, loop: func(o *loop.Options) {
				o.Window = func(string) int { return 500 } // threshold 400, target 200 tokens
			}})
			for range 2 {
				r, _ := e.send(t, "local:ana", big)
				r.wait(t)
			}
			// 5 messages of ~100 tokens at the 3rd run: over 400; the
			// target of 200 keeps only the new user message.
			r, _ := e.send(t, "local:ana", big)
			r.wait(t)
			r, _ = e.send(t, "local:ana", big)
			if ev := r.wait(t); ev.Type != beamclaw.EvFinal {
				t.Fatalf("run ended with %s %q", ev.Type, ev.Text)
			}
			h, _ := e.m.History(e.sid("local:ana"))
			if diff := cmp.Diff(tc.want, roles(h)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			cc := e.ev.Named("compaction_complete")
			if len(cc) != 1 || attrInt(cc[0], "before") != 5 || attrInt(cc[0], "after") != tc.after {
				t.Errorf("compaction_complete events %+v", cc)
			}
			// The four messages of the earlier turns were the provider's
			// cached history; the rewrite costs about 100 tokens each.
			if lost := attrInt(cc[0], "cached_tokens_lost"); lost < 300 || lost > 500 {
				t.Errorf("compaction_complete says %d cached tokens lost, want the ~400 of the earlier turns", lost)
			}
		})
	}
}

func TestEphemeralStoresNothingAndDeniesApproval(t *testing.T) {
	tl := &echoTool{name: "write", approval: true}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	e.p.add(callTool("write", `{"text":"x"}`), say("could not write"))
	r := newRecorder()
	hist := []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hi"}, {Role: beamclaw.RoleAssistant, Content: "hello"},
		{Role: beamclaw.RoleUser, Content: "write x"}}
	if _, err := e.m.RunDetached(context.Background(), Detached{Agent: "default", Channel: beamclaw.ChannelHTTP, History: hist}, r); err != nil {
		t.Fatal(err)
	}
	if ev := r.wait(t); ev.Text != "could not write" {
		t.Errorf("final %q", ev.Text)
	}
	if tl.runs.Load() != 0 {
		t.Error("tool ran without approval")
	}
	if got := toolResults(e.p); len(got) != 1 || !strings.Contains(got[0], "cannot ask for one") {
		t.Errorf("tool results %q", got)
	}
	if s := e.m.Stats(); s.Stored != 0 || s.Live != 0 {
		t.Errorf("stats %+v after an ephemeral run", s)
	}
}

func TestXMLToolCallIsParsedAndNotStreamed(t *testing.T) {
	tl := &echoTool{name: "look"}
	e := newEnv(t, envOpts{tools: []beamclaw.Tool{tl}})
	e.p.add(say(`Checking. <tool_call><name>look</name><args>{"text":"a"}</args></tool_call>`), say("found it"))
	r, _ := e.send(t, "local:ana", "go")
	if ev := r.wait(t); ev.Text != "found it" || tl.runs.Load() != 1 {
		t.Fatalf("final %q after %d runs", ev.Text, tl.runs.Load())
	}
	for _, ev := range r.of(beamclaw.EvChunk) {
		if strings.Contains(ev.Text, "<tool_call") {
			t.Errorf("tool markup streamed: %q", ev.Text)
		}
	}
}

func TestMemoryFlushBeforeCompaction(t *testing.T) {
	big := strings.Repeat("y", 400) // 100 tokens
	cases := []struct {
		name  string
		flush step
		want  []string // notes handed to MemoryFlush
	}{
		{"notes saved", say("- the user likes tea"), []string{"- the user likes tea"}},
		{"nothing to keep", say("NOTHING"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			var agents []string
			e := newEnv(t, envOpts{p: &scripted{summary: say("summary"), flush: tc.flush}, loop: func(o *loop.Options) {
				o.Window = func(string) int { return 500 }
				o.MemoryFlush = func(_ context.Context, agentID, _, notes string) error {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, notes)
					agents = append(agents, agentID)
					return nil
				}
			}})
			for range 3 {
				r, _ := e.send(t, "local:ana", big)
				if ev := r.wait(t); ev.Type != beamclaw.EvFinal {
					t.Fatalf("run ended with %s %q", ev.Type, ev.Text)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("flushed notes (-want +got):\n%s", diff)
			}
			for _, a := range agents {
				if a != "default" {
					t.Errorf("flushed for agent %q", a)
				}
			}
			if n := len(e.ev.Named("memory_flush")); n != 1 {
				t.Errorf("%d memory_flush events, want 1", n)
			}
			for _, req := range e.p.requests() {
				for _, m := range req.Messages { // the instruction is only ever a hidden turn's System
					if strings.Contains(m.Content, "about to be compacted") {
						t.Error("the hidden flush instruction leaked into a visible request")
					}
				}
			}
		})
	}
}

func TestPromptSeesTheRunInput(t *testing.T) {
	var mu sync.Mutex
	var inputs []string
	e := newEnv(t, envOpts{loop: func(o *loop.Options) {
		o.Prompt = func(_ context.Context, agentID, _, input string) (string, string, error) {
			mu.Lock()
			defer mu.Unlock()
			inputs = append(inputs, input)
			return "You are " + agentID + ".", "", nil
		}
	}})
	r, _ := e.send(t, "local:ana", "what did I say about tea?")
	r.wait(t)
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"what did I say about tea?"}, inputs); diff != "" {
		t.Errorf("prompt inputs (-want +got):\n%s", diff)
	}
	if reqs := e.p.requests(); len(reqs) == 0 || reqs[0].System != "You are default." {
		t.Errorf("system prompt not sent first: %+v", reqs)
	}
}
