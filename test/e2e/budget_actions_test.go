package e2e

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestBudgetActionsThroughTheDaemon (issue 25, item 2): each action of a
// budget as the user meets it. warn: the answer of the turn that passes
// warn_percent says so once, a budget_warning event is logged, the call
// is sent max_tokens 4096 (it set none: its answer cannot pass its
// reservation), and the turn is still one commit. route_down: the call
// goes to route_down_model and the answer says so. block: no model call;
// the refusal names the budget and when it resets, with a Retry-After up
// to midnight UTC. A call that cannot be priced under a money budget is
// refused, whatever the budget's action.
func TestBudgetActionsThroughTheDaemon(t *testing.T) {
	t.Run("warn", func(t *testing.T) {
		clearOfMidnight(t, time.Minute)
		r := newChatRig(t, rigOptions{
			core: "  budgets:\n    - {scope: agent, period: day, tokens: 50000, action: block, warn_percent: 1}\n"})
		r.llm.SetDefault(fakellm.Rules)
		r.start()
		before := metric(t, r.addr, "beamclaw_store_commits_total")
		first := r.chat("ana", "hello")
		if d := metric(t, r.addr, "beamclaw_store_commits_total") - before; d != 1 {
			t.Errorf("a turn under a budget took %v commits, want 1 (the reservation and its settlement write nothing)", d)
		}
		if !regexp.MustCompile(`\(Budget: the daily budget of agent default is \d+% used\.\)$`).MatchString(first) {
			t.Errorf("the answer that passed warn_percent: %q", first)
		}
		if second := r.chat("ana", "hello again"); strings.Contains(second, "Budget:") {
			t.Errorf("the warning was said twice in a period: %q", second)
		}
		if !strings.Contains(r.h.logs(), "budget_warning") {
			t.Error("no budget_warning event in the log")
		}
		if got := r.llm.Requests()[0].MaxTokens; got != 4096 {
			t.Errorf("a call under budgets that set no max_tokens was sent %d, want 4096", got)
		}
	})
	t.Run("route_down", func(t *testing.T) {
		r := newChatRig(t, rigOptions{
			core: "  budgets:\n    - {scope: user, period: day, tokens: 100, action: route_down, route_down_model: cheap-model}\n"})
		r.llm.SetDefault(fakellm.Rules)
		r.start()
		answer := r.chat("ana", "hello")
		reqs := r.llm.Requests()
		if len(reqs) != 1 || reqs[0].Model != "cheap-model" {
			t.Fatalf("%d calls; the call past a route_down budget went to %q, want cheap-model", len(reqs), reqs[0].Model)
		}
		if !strings.Contains(answer, "the daily budget of user api:ana (100 tokens) is spent") || !strings.Contains(answer, "calls go to cheap-model") {
			t.Errorf("the answer does not say the calls went down: %q", answer)
		}
	})
	t.Run("block", func(t *testing.T) {
		r := newChatRig(t, rigOptions{
			core: "  budgets:\n    - {scope: agent, period: day, tokens: 100, action: block}\n"})
		r.llm.SetDefault(fakellm.Rules)
		r.start()
		sent := time.Now()
		resp, err := r.hc.Post("http://"+r.addr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model": "default", "user": "ana", "messages": [{"role": "user", "content": "hello"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		code, h, body := resp.StatusCode, resp.Header, string(b)
		resets := func(at time.Time) bool { // midnight UTC after at
			return strings.Contains(body, "it resets at "+at.UTC().Truncate(24*time.Hour).Add(24*time.Hour).Format("2006-01-02 15:04")+" UTC")
		}
		if code != http.StatusTooManyRequests || !strings.Contains(body, `"budget_exceeded"`) ||
			!strings.Contains(body, "the daily budget of agent default (100 tokens) is spent") || !(resets(sent) || resets(time.Now())) {
			t.Errorf("a call past a block budget: %d %s", code, body)
		}
		if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s <= 0 || s > 86400 {
			t.Errorf("Retry-After %q, want the seconds to midnight UTC", h.Get("Retry-After"))
		}
		if n := len(r.llm.Requests()); n != 0 {
			t.Errorf("a blocked call reached the provider %d times", n)
		}
	})
	t.Run("unpriced", func(t *testing.T) { // fails closed: a money budget and no rate for the model
		r := newChatRig(t, rigOptions{core: "  budgets:\n    - {scope: global, period: month, usd: 5.00, action: warn}\n"})
		r.llm.SetDefault(fakellm.Rules)
		r.start()
		code, body := r.post("ana", "hello")
		if code != http.StatusTooManyRequests || !strings.Contains(body, `"budget_exceeded"`) ||
			!strings.Contains(body, "model fake/fake-model has no rate in core.costs.rates") || len(r.llm.Requests()) != 0 {
			t.Errorf("a call that cannot be priced under a money budget: %d %s; %d model calls", code, body, len(r.llm.Requests()))
		}
	})
}

// TestCostsConfigShape (issue 25): the issue's config block is accepted
// as written; the section is strict: a wrong scope, period or action, a
// budget that limits nothing, route_down without its model, a negative
// rate and an unknown key are each refused by config check, naming it.
func TestCostsConfigShape(t *testing.T) {
	const issue = `  costs:
    rates:                       # USD per million tokens, by provider/model
      openai/gpt-4o-mini: {input: 0.15, output: 0.60, cached: 0.075}
  budgets:
    - scope: agent               # session | user | agent | global | background
      period: day                # day | month | total
      tokens: 2000000            # and/or usd: 5.00
      action: block              # warn | block | route_down
      route_down_model: gpt-4o-mini
      warn_percent: 80
`
	if res := newHome(t, rigConfig("http://127.0.0.1:9/v1", rigOptions{core: issue})).run("config", "check"); res.code != 0 {
		t.Fatalf("the issue's config block: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, tc := range []struct{ budget, says string }{
		{"{scope: team, period: day, tokens: 1, action: block}", "budgets[0].scope"},
		{"{scope: agent, period: week, tokens: 1, action: block}", "budgets[0].period"},
		{"{scope: agent, period: day, tokens: 1, action: explode}", "budgets[0].action"},
		{"{scope: agent, period: day, action: block}", "limits nothing"},
		{"{scope: agent, period: day, usd: 5.00, action: route_down}", "route_down_model"},
		{"{scope: agent, period: day, tokens: 1, action: block, limit: 5}", "core.budgets[0].limit: unknown key"},
	} {
		res := newHome(t, rigConfig("http://127.0.0.1:9/v1", rigOptions{core: "  budgets:\n    - " + tc.budget + "\n"})).run("config", "check")
		if out := res.stdout + res.stderr; res.code == 0 || !strings.Contains(out, tc.says) {
			t.Errorf("budget %s: exit %d, want a refusal naming %q:\n%s", tc.budget, res.code, tc.says, out)
		}
	}
	bad := "  costs:\n    rates:\n      fake-model: {input: -1, output: 2}\n"
	if res := newHome(t, rigConfig("http://127.0.0.1:9/v1", rigOptions{core: bad})).run("config", "check"); res.code == 0 ||
		!strings.Contains(res.stdout+res.stderr, "costs.rates.fake-model.input") {
		t.Errorf("a negative rate: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
