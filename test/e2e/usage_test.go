package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestLoopBreakerThroughTheDaemon (issue 25, item 4): a model that asks
// for more tool calls in a turn than core.agentic_loop.max_tool_calls_per_turn
// allows gets none of them run; the user is told why.
func TestLoopBreakerThroughTheDaemon(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"},
		core: "  agentic_loop:\n    max_tool_calls_per_turn: 2\n"})
	r.llm.SetDefault(fakellm.Rules)
	list := fakellm.ToolCall{Name: "workspace_memory", Arguments: `{"action":"list_daily"}`}
	read := fakellm.ToolCall{Name: "workspace_memory", Arguments: `{"action":"read"}`}
	r.llm.Script(fakellm.Reply{ToolCalls: []fakellm.ToolCall{list, read}}, fakellm.Reply{ToolCalls: []fakellm.ToolCall{list}})
	r.start()
	answer := r.chat("ana", "keep calling tools")
	if !strings.Contains(answer, "more than 2 tool calls") || !strings.Contains(answer, "max_tool_calls_per_turn") {
		t.Errorf("answer %q does not say the turn stopped at its tool-call cap", answer)
	}
	if n := len(r.llm.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2 (the cap stops the turn before a third)", n)
	}
	if !strings.Contains(r.h.logs(), "turn_limit") {
		t.Error("no turn_limit event in the log")
	}
}

// TestUsageLedger (issue 25, item 1): every model call of a turn (a tool
// step's included) is in the ledger with the tokens the provider reported
// and the cost by core.costs.rates; beamclaw usage sums it by agent,
// origin, user, session, day and model, reads --since, and equals the
// provider's own count; the Prometheus counters agree; a turn still costs
// one commit; a restart keeps it all.
func TestUsageLedger(t *testing.T) {
	r := newChatRig(t, rigOptions{autonomy: "full", channels: map[string]string{"http": "full"},
		core: "  costs:\n    rates:\n      fake-model: {input: 1.0, output: 2.0}\n"})
	r.llm.SetDefault(fakellm.Rules)
	r.llm.Script(
		fakellm.Reply{Text: "hello", Usage: &fakellm.Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110}},
		fakellm.Reply{ToolCalls: []fakellm.ToolCall{{Name: "workspace_memory", Arguments: `{"action":"list_daily"}`}},
			Usage: &fakellm.Usage{PromptTokens: 200, CompletionTokens: 20, TotalTokens: 220, Details: &fakellm.UsageDetails{CachedTokens: 150}}},
		fakellm.Reply{Text: "done", Usage: &fakellm.Usage{PromptTokens: 300, CompletionTokens: 30, TotalTokens: 330}},
	)
	r.start()
	before := metric(t, r.addr, "beamclaw_store_commits_total")
	r.chat("ana", "hi")
	if d := metric(t, r.addr, "beamclaw_store_commits_total") - before; d != 1 {
		t.Errorf("a turn took %v commits with its ledger entry, want 1", d)
	}
	r.chat("ana", "list my daily logs")
	want := protocol.UsageRow{Key: "total", Calls: 3, In: 600, Out: 60, Cached: 150, USD: (600 + 60*2) / 1e6}
	check := func(when string) {
		t.Helper()
		var rep protocol.UsageReport
		if out := r.h.must("usage", "--json").stdout; json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("usage --json: %s", out)
		}
		if diff := cmp.Diff(want, rep.Total, cmpopts.EquateApprox(0, 1e-9)); diff != "" || len(rep.Rows) != 1 || rep.Rows[0].Key != "default" {
			t.Errorf("%s: usage total (-want +got):\n%s\nrows %+v", when, diff, rep.Rows)
		}
		for _, by := range []struct{ args, key string }{ // key "": any (a day's turns may straddle midnight UTC)
			{"--by origin", "interactive"}, {"--by user", "api:ana"}, {"--by session", ""}, {"--by day --since 1h", ""},
			{"--by model --since " + time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly), "fake/fake-model"},
		} {
			var rep protocol.UsageReport
			_ = json.Unmarshal([]byte(r.h.must(append([]string{"usage", "--json"}, strings.Fields(by.args)...)...).stdout), &rep)
			calls := 0
			for _, row := range rep.Rows {
				calls += row.Calls
			}
			if calls != 3 || (by.key != "" && (len(rep.Rows) != 1 || rep.Rows[0].Key != by.key)) {
				t.Errorf("%s: usage %s: %+v", when, by.args, rep.Rows)
			}
		}
		var later protocol.UsageReport
		_ = json.Unmarshal([]byte(r.h.must("usage", "--json", "--since", time.Now().Add(time.Hour).Format(time.RFC3339)).stdout), &later)
		if len(later.Rows) != 0 || later.Total.Calls != 0 {
			t.Errorf("%s: usage since an hour from now: %+v", when, later)
		}
		if res := r.h.run("usage", "--since", "last week"); res.code == 0 || !strings.Contains(res.stderr, "--since") {
			t.Errorf("%s: usage --since 'last week' exited %d: %s", when, res.code, res.stderr)
		}
	}
	check("running")
	_, body := get(t, "http://"+r.addr+"/metrics")
	for _, line := range []string{
		`beamclaw_llm_tokens_total{kind="in",model="fake-model",provider="fake"} 600`,
		`beamclaw_llm_tokens_total{kind="cached",model="fake-model",provider="fake"} 150`,
		`beamclaw_llm_tokens_total{kind="out",model="fake-model",provider="fake"} 60`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	if !regexp.MustCompile(`beamclaw_llm_cost_usd_total\{model="fake-model",provider="fake"\} 0\.00072`).MatchString(body) {
		t.Error("/metrics lacks the cost counter")
	}
	r.h.must("stop")
	check("stopped") // read from the store itself
	r.start()
	check("restarted")
}

// TestBudgetsUnderConcurrency (issue 25, item 2): 64 concurrent requests
// against a global budget that allows about ten turns: the tokens the
// provider served never pass the budget, the refused requests get 429
// budget_exceeded naming the budget with a Retry-After, beamclaw usage
// equals the provider's own count, and after a restart the budget is as
// spent as before.
func TestBudgetsUnderConcurrency(t *testing.T) {
	const budget = 15_000 // about ten turns of ~1,500 tokens
	clearOfMidnight(t, 3*time.Minute)
	r := newChatRig(t, rigOptions{gateway: "  rate_limit: {enabled: false}\n",
		core: fmt.Sprintf("  budgets:\n    - {scope: global, period: day, tokens: %d, action: block}\n", budget)})
	var served atomic.Int64 // the provider's own count
	r.llm.SetDefault(func(req fakellm.Request) fakellm.Reply {
		u := fakellm.Usage{PromptTokens: len(req.Body) / 4, CompletionTokens: 5}
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
		served.Add(int64(u.TotalTokens))
		return fakellm.Reply{Text: "ok", Usage: &u}
	})
	r.start()
	ask := r.hello
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			code, h, body := ask(fmt.Sprintf("u%d", i))
			switch code {
			case http.StatusOK:
				ok.Add(1)
			case http.StatusTooManyRequests:
				refused.Add(1)
				if !strings.Contains(body, `"budget_exceeded"`) || !strings.Contains(body, "daily global budget") || h.Get("Retry-After") == "" {
					t.Errorf("a refusal: %s (Retry-After %q)", body, h.Get("Retry-After"))
				}
			default:
				t.Errorf("status %d: %s", code, body)
			}
		})
	}
	wg.Wait()
	t.Logf("64 concurrent requests: %d served (%d tokens of a %d budget), %d refused", ok.Load(), served.Load(), budget, refused.Load())
	if served.Load() > budget || ok.Load() == 0 || refused.Load() == 0 {
		t.Fatalf("%d served (%d tokens of a %d budget), %d refused", ok.Load(), served.Load(), budget, refused.Load())
	}
	// Use up the rest, one at a time.
	for range 20 {
		if code, _, _ := ask("last"); code != http.StatusOK {
			break
		}
		ok.Add(1)
	}
	t.Logf("then one at a time: %d served in all (%d tokens)", ok.Load(), served.Load())
	if served.Load() > budget {
		t.Fatalf("%d tokens served of a %d budget", served.Load(), budget)
	}
	total := func() int64 {
		var rep protocol.UsageReport
		_ = json.Unmarshal([]byte(r.h.must("usage", "--json").stdout), &rep)
		return rep.Total.In + rep.Total.Out
	}
	if got := total(); got != served.Load() {
		t.Errorf("beamclaw usage counts %d tokens, the provider served %d", got, served.Load())
	}
	r.h.must("stop")
	r.start()
	if code, _, body := ask("after-restart"); code != http.StatusTooManyRequests {
		t.Errorf("after a restart the spent budget let a request through: %d %s", code, body)
	}
	if got := total(); got != served.Load() {
		t.Errorf("after a restart beamclaw usage counts %d tokens, the provider served %d", got, served.Load())
	}
}

// TestHeartbeatWithinTheBackgroundBudget (issue 25, item 2): a heartbeat
// whose background budget is spent makes no model call; its run fails
// saying which budget.
func TestHeartbeatWithinTheBackgroundBudget(t *testing.T) {
	sink := newHookSink(t)
	more := fmt.Sprintf("  heartbeat:\n    default_interval_ms: 1000\n    active_hours: [0, 24]\n    deliver: %q\n", "webhook:"+sink.url())
	r := schedRig(t, sink, more, rigOptions{core: "  budgets:\n    - {scope: background, period: day, tokens: 10, action: block}\n"})
	r.start()
	hb := filepath.Join(r.h.dir, "agents", "default", "HEARTBEAT.md")
	putFile(t, hb, "# Heartbeat\n\n- Check whether the nightly build is red\n")
	var heartbeat protocol.SchedJob
	pollUntil(t, 30*time.Second, "the heartbeat job", func() bool {
		for _, j := range r.schedList() {
			if j.Heartbeat && j.Agent == "default" {
				heartbeat = j
			}
		}
		return heartbeat.ID != ""
	})
	pollUntil(t, 30*time.Second, "a heartbeat refused by its budget", func() bool {
		for _, run := range r.schedRuns(heartbeat.ID) {
			if run.Outcome == "failed" && strings.Contains(run.Error, "background work") {
				return true
			}
		}
		return false
	})
	if n := len(r.llm.Requests()); n != 0 {
		t.Errorf("a heartbeat past its background budget made %d model calls", n)
	}
	r.chat("ana", "hello") // interactive work is not background
	if n := len(r.llm.Requests()); n != 1 {
		t.Errorf("an interactive turn made %d model calls, want 1", n)
	}
}

// TestUsageEstimatedWhenTheProviderReportsNone (issue 25, item 1): a
// model call whose provider reports no usage is in the ledger with its
// tokens estimated from its bytes, and marked estimated.
func TestUsageEstimatedWhenTheProviderReportsNone(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.llm.Script(fakellm.Reply{Text: "an answer of some forty bytes, or so.", NoUsage: true})
	r.start()
	r.chat("ana", "hello")
	var rep protocol.UsageReport
	if out := r.h.must("usage", "--json").stdout; json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("usage --json: %s", out)
	}
	if tot := rep.Total; tot.Calls != 1 || tot.Estimated != 1 || tot.In < 1000 || tot.Out != 10 {
		t.Errorf("a call without usage: %+v, want it estimated (the prompt's bytes / 4, out 37 bytes / 4 = 10)", tot)
	}
	if out := r.h.must("usage").stdout; !strings.Contains(out, "1 estimated") {
		t.Errorf("beamclaw usage does not say the call is estimated:\n%s", out)
	}
}

// hello sends user's "hello" with max_tokens 20 (a small, known
// reservation under budgets), safe from many goroutines at once: the
// status, headers and body of the answer (0 when it never came).
func (r *chatRig) hello(user string) (int, http.Header, string) {
	body, _ := json.Marshal(map[string]any{"model": "default", "user": user, "max_tokens": 20,
		"messages": []map[string]string{{"role": "user", "content": "hello"}}})
	resp, err := r.hc.Post("http://"+r.addr+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		r.t.Error(err)
		return 0, nil, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}
