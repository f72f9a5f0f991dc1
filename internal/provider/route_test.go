package provider_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// recorder records the chain's events.
type recorder struct{ evs []beamclaw.Event }

func (r *recorder) Emit(_ context.Context, ev beamclaw.Event) { r.evs = append(r.evs, ev) }

// Each failure takes its path: a rate limit, an unavailable provider,
// refused credentials and a refused bill move to the fallback and cool the
// primary down (no paid call reaches it until the cool-down ends, its
// Retry-After when it gave one); an overflowing context and a
// content-policy refusal are not retried anywhere.
func TestChainKnowsWhyACallFailed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reply    fakellm.Reply
		cooldown time.Duration // 0: no fallback, no cool-down
		kind     beamclaw.Kind
	}{
		{"429 with Retry-After", fakellm.Reply{Status: 429, RetryAfter: 30 * time.Second}, 30 * time.Second, 0},
		{"503 with Retry-After", fakellm.Reply{Status: 503, RetryAfter: 45 * time.Second}, 45 * time.Second, 0},
		{"401", fakellm.Reply{Status: 401, Error: "invalid api key"}, provider.AuthCooldown, 0},
		{"402", fakellm.Reply{Status: 402, Error: "insufficient credits"}, provider.AuthCooldown, 0},
		{"context overflow", fakellm.Reply{Status: 400, Error: "This model's maximum context length is 8192 tokens, your messages resulted in 9001 tokens"}, 0, beamclaw.KindTooLarge},
		{"content policy", fakellm.Reply{Status: 400, Error: "The response was filtered due to the prompt triggering our content management policy"}, 0, beamclaw.KindForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p1, p2 := fakellm.New(t), fakellm.New(t)
			p1.Script(tc.reply)
			clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
			rec := &recorder{}
			chain, err := provider.NewChain(provider.ChainOptions{Emitter: rec, Clock: clk},
				client(t, p1, openai.Options{Name: "primary", MaxRetries: -1, Model: "a", RetryAfterCap: time.Millisecond}),
				client(t, p2, openai.Options{Name: "fallback", MaxRetries: -1, Model: "b"}))
			if err != nil {
				t.Fatal(err)
			}
			req := beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
			resp, err := chain.Chat(context.Background(), req, nil)
			if tc.cooldown == 0 {
				if beamclaw.KindOf(err) != tc.kind || len(p2.Requests()) != 0 {
					t.Fatalf("err %v (want kind %v), fallback asked %d times (want 0)", err, tc.kind, len(p2.Requests()))
				}
				return
			}
			if err != nil || resp.Provider != "fallback" {
				t.Fatalf("Chat = %+v, %v; want the fallback's answer", resp, err)
			}
			if len(rec.evs) != 1 || rec.evs[0].Name != beamclaw.EventLLMAttempt {
				t.Errorf("events %+v, want one llm_attempt", rec.evs)
			}
			clk.Advance(tc.cooldown - time.Second)
			if _, err := chain.Chat(context.Background(), req, nil); err != nil || len(p1.Requests()) != 1 {
				t.Errorf("while cooling down the primary was asked %d times (want 1): %v", len(p1.Requests()), err)
			}
			clk.Advance(2 * time.Second)
			if resp, _ := chain.Chat(context.Background(), req, nil); resp.Provider != "primary" || len(p1.Requests()) != 2 {
				t.Errorf("after the cool-down %q answered; the primary was asked %d times", resp.Provider, len(p1.Requests()))
			}
		})
	}
}

// With every provider cooling down no call is made: a rate-limit error
// with the shortest wait; an error after several attempts names each.
func TestChainAllCooledAndAttemptsNamed(t *testing.T) {
	p1, p2 := fakellm.New(t), fakellm.New(t)
	p1.Script(fakellm.Reply{Status: 503})
	p2.Script(fakellm.Reply{Status: 429, RetryAfter: 5 * time.Second})
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	chain, err := provider.NewChain(provider.ChainOptions{Clock: clk},
		client(t, p1, openai.Options{Name: "primary", MaxRetries: -1, Model: "a"}),
		client(t, p2, openai.Options{Name: "fallback", MaxRetries: -1, Model: "b", RetryAfterCap: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	req := beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
	_, err = chain.Chat(context.Background(), req, nil)
	if msg := beamclaw.UserMessage(err); beamclaw.KindOf(err) != beamclaw.KindRateLimited || !strings.Contains(msg, "primary: ") || !strings.Contains(msg, "fallback: ") {
		t.Fatalf("err %v: want a rate limit naming both attempts", msg)
	}
	_, err = chain.Chat(context.Background(), req, nil)
	if beamclaw.KindOf(err) != beamclaw.KindRateLimited || beamclaw.RetryAfterOf(err) != 5*time.Second || len(p1.Requests())+len(p2.Requests()) != 2 {
		t.Errorf("all cooling down: %v (retry in %s); %d calls, want 2", err, beamclaw.RetryAfterOf(err), len(p1.Requests())+len(p2.Requests()))
	}
}

// A conversation stays with the provider that last answered it, even
// once the one before it is usable again.
func TestChainIsStickyPerConversation(t *testing.T) {
	p1, p2 := fakellm.New(t), fakellm.New(t)
	p1.Script(fakellm.Reply{Status: 500})
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	chain := primaryAndFallback(t, clk, p1, p2)
	req := beamclaw.ChatRequest{Conversation: "session-1", Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
	if resp, err := chain.Chat(context.Background(), req, nil); err != nil || resp.Provider != "fallback" {
		t.Fatalf("first: %+v %v", resp, err)
	}
	clk.Advance(time.Hour)
	if resp, _ := chain.Chat(context.Background(), req, nil); resp.Provider != "fallback" || len(p1.Requests()) != 1 {
		t.Errorf("the conversation moved back to %q", resp.Provider)
	}
	other := req
	other.Conversation = "session-2"
	if resp, _ := chain.Chat(context.Background(), other, nil); resp.Provider != "primary" {
		t.Errorf("another conversation went to %q, want the primary", resp.Provider)
	}
}

// A provider with several keys is several entries of the chain: a key the
// provider refuses cools down alone and the next key of the same provider
// answers, with the same model.
func TestChainTurnsToTheNextKey(t *testing.T) {
	srv := fakellm.New(t)
	srv.Script(fakellm.Reply{Status: 401, Error: "invalid api key"})
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	rec := &recorder{}
	chain, err := provider.NewChain(provider.ChainOptions{Clock: clk, Emitter: rec},
		client(t, srv, openai.Options{Name: "primary", MaxRetries: -1, Model: "a"}),
		client(t, srv, openai.Options{Name: "primary", MaxRetries: -1, Model: "a"}))
	if err != nil {
		t.Fatal(err)
	}
	req := beamclaw.ChatRequest{Model: "asked", Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
	if resp, err := chain.Chat(context.Background(), req, nil); err != nil || resp.Provider != "primary" {
		t.Fatalf("Chat = %+v, %v", resp, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Model != "asked" {
		t.Errorf("requests %d, the second key's model %q (want the one asked for)", len(reqs), reqs[len(reqs)-1].Model)
	}
	if len(rec.evs) != 1 || rec.evs[0].Attrs[0].Value.String() != "primary (key 1)" {
		t.Errorf("events %+v, want the first key's attempt", rec.evs)
	}
	if _, err := chain.Chat(context.Background(), req, nil); err != nil || len(srv.Requests()) != 3 {
		t.Errorf("the refused key was tried again while cooling down: %d requests, %v", len(srv.Requests()), err)
	}
}

// A provider whose cool-down ended is asked with a health probe (GET
// /models, which costs nothing) before any paid call: a failed probe
// cools it down again and the call goes on down the chain.
func TestChainProbesACooledProvider(t *testing.T) {
	p1, p2 := fakellm.New(t), fakellm.New(t)
	p1.Script(fakellm.Reply{Status: 503})
	p1.ScriptFor(fakellm.PathModels, fakellm.Reply{Status: 503})
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	chain := primaryAndFallback(t, clk, p1, p2)
	req := beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
	paths := func() []string {
		var out []string
		for _, r := range p1.AllRequests() {
			out = append(out, r.Path)
		}
		return out
	}
	ask := func() string {
		t.Helper()
		resp, err := chain.Chat(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Provider
	}
	if got := ask(); got != "fallback" {
		t.Fatalf("first call answered by %s", got)
	}
	clk.Advance(provider.UnavailableCooldown)
	if got := ask(); got != "fallback" || strings.Join(paths(), ",") != fakellm.PathChat+","+fakellm.PathModels {
		t.Errorf("after the cool-down: %s answered; the primary saw %v (want one paid call, then a probe only)", got, paths())
	}
	clk.Advance(provider.UnavailableCooldown)
	if got := ask(); got != "primary" || strings.Join(paths(), ",") != fakellm.PathChat+","+fakellm.PathModels+","+fakellm.PathModels+","+fakellm.PathChat {
		t.Errorf("after a good probe: %s answered; the primary saw %v", got, paths())
	}
}

// One retry loop: a provider with somewhere to fall over to makes one
// attempt (its max_retries do not multiply the chain's attempts); the
// last one the chain can ask retries as its max_retries say. Every failed
// attempt, a retry in place too, is an llm_attempt event and is named in
// the final error.
func TestChainIsTheOneRetryLoop(t *testing.T) {
	p1, p2 := fakellm.New(t), fakellm.New(t)
	p1.Script(fakellm.Reply{Status: 500})
	p2.Script(fakellm.Reply{Status: 500})
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	rec := &recorder{}
	chain, err := provider.NewChain(provider.ChainOptions{Clock: clk, Emitter: rec},
		client(t, p1, openai.Options{Name: "primary", MaxRetries: 2, Model: "a"}),
		client(t, p2, openai.Options{Name: "fallback", MaxRetries: 2, Model: "b"}))
	if err != nil {
		t.Fatal(err)
	}
	req := beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
	resp, err := chain.Chat(context.Background(), req, nil)
	if err != nil || resp.Provider != "fallback" {
		t.Fatalf("Chat = %+v, %v", resp, err)
	}
	if n1, n2 := len(p1.Requests()), len(p2.Requests()); n1 != 1 || n2 != 2 {
		t.Errorf("the primary got %d attempts (want 1: the chain goes on), the last provider %d (want 2: it retried)", n1, n2)
	}
	var named []string
	for _, ev := range rec.evs {
		if ev.Name == beamclaw.EventLLMAttempt {
			named = append(named, ev.Attrs[0].Value.String())
		}
	}
	if strings.Join(named, ",") != "primary,fallback" {
		t.Errorf("llm_attempt events for %v, want primary,fallback (the retried attempt too)", named)
	}
	p1.Script(fakellm.Reply{Status: 500})
	p2.Script(fakellm.Reply{Status: 500}, fakellm.Reply{Status: 500}, fakellm.Reply{Status: 500})
	clk.Advance(time.Hour)
	_, err = chain.Chat(context.Background(), req, nil)
	if msg := beamclaw.UserMessage(err); strings.Count(msg, "fallback: ") != 3 || strings.Count(msg, "primary: ") != 1 {
		t.Errorf("the final error %q does not name each of the 4 attempts", msg)
	}
}

// A context that overflows one model goes to the next provider whose
// model has a larger window, skipping those whose window is no larger.
func TestChainTakesOverflowToALargerWindow(t *testing.T) {
	overflow := fakellm.Reply{Status: 400, Error: "This model's maximum context length is 8192 tokens"}
	small, same, big := fakellm.New(t), fakellm.New(t), fakellm.New(t)
	small.Script(overflow)
	windows := map[string]int{"small-model": 8192, "same-model": 8192, "big-model": 200_000}
	chain, err := provider.NewChain(provider.ChainOptions{Window: func(m string) int { return windows[m] }},
		client(t, small, openai.Options{Name: "small", MaxRetries: -1, Model: "small-model"}),
		client(t, same, openai.Options{Name: "same", MaxRetries: -1, Model: "same-model"}),
		client(t, big, openai.Options{Name: "big", MaxRetries: -1, Model: "big-model"}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := chain.Chat(context.Background(), beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}, nil)
	if err != nil || resp.Provider != "big" || len(same.Requests()) != 0 {
		t.Errorf("Chat = %q, %v; the same-window provider was asked %d times", resp.Provider, err, len(same.Requests()))
	}
}

// A server without a model list (404, as a deployment URL answers) passes
// the probe: it answered, so it is up, and gets the call.
func TestChainProbeTakesA404AsUp(t *testing.T) {
	p1, p2 := fakellm.New(t), fakellm.New(t)
	p1.Script(fakellm.Reply{Status: 503})
	p1.ScriptFor(fakellm.PathModels, fakellm.Reply{Status: 404})
	clk := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	chain := primaryAndFallback(t, clk, p1, p2)
	req := beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
	if _, err := chain.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	clk.Advance(provider.UnavailableCooldown)
	if resp, err := chain.Chat(context.Background(), req, nil); err != nil || resp.Provider != "primary" {
		t.Errorf("after a 404 probe: %q answered (%v), want the primary", resp.Provider, err)
	}
}

// Chains over the same clients share their health: a 429 seen through
// one spares the provider in the other (an agent's own chain, say).
func TestChainsShareHealth(t *testing.T) {
	p1, p2 := fakellm.New(t), fakellm.New(t)
	p1.Script(fakellm.Reply{Status: 429, RetryAfter: time.Minute})
	c1 := client(t, p1, openai.Options{Name: "primary", MaxRetries: -1, Model: "a", RetryAfterCap: time.Millisecond})
	c2 := client(t, p2, openai.Options{Name: "fallback", MaxRetries: -1, Model: "b"})
	health := provider.NewHealth()
	a, _ := provider.NewChain(provider.ChainOptions{Health: health}, c1, c2)
	b, _ := provider.NewChain(provider.ChainOptions{Health: health}, c1, c2)
	req := beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "hello"}}}
	if _, err := a.Chat(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if resp, err := b.Chat(context.Background(), req, nil); err != nil || resp.Provider != "fallback" || len(p1.Requests()) != 1 {
		t.Errorf("the other chain: %q answered (%v); the rate-limited primary got %d calls, want 1", resp.Provider, err, len(p1.Requests()))
	}
}

// primaryAndFallback is a chain of a "primary" client of p1 (model a)
// and a "fallback" client of p2 (model b), neither retrying in place.
func primaryAndFallback(t *testing.T, clk clock.Clock, p1, p2 *fakellm.Server) *provider.Chain {
	t.Helper()
	chain, err := provider.NewChain(provider.ChainOptions{Clock: clk},
		client(t, p1, openai.Options{Name: "primary", MaxRetries: -1, Model: "a"}),
		client(t, p2, openai.Options{Name: "fallback", MaxRetries: -1, Model: "b"}))
	if err != nil {
		t.Fatal(err)
	}
	return chain
}
