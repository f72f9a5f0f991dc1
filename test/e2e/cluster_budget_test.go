package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// A budget holds across the cluster with calls in flight on every node
// at once (period total: a day's end in the middle changes nothing): 36 slow requests spread over three nodes against a global
// budget of about ten turns are served within it, the rest refused with
// 429 budget_exceeded on whichever node they reached, and every node's
// beamclaw usage equals the provider's own count.
func TestClusterBudgetHoldsAcrossNodes(t *testing.T) {
	const budget = 15_000 // about ten turns of ~1,500 tokens
	rigs := clusterNodesWith(t, 3, 3, rigOptions{gateway: "  rate_limit: {enabled: false}\n",
		core: fmt.Sprintf("  budgets:\n    - {scope: global, period: total, tokens: %d, action: block}\n", budget)})
	var served atomic.Int64 // the provider's own count
	rigs[0].llm.SetDefault(func(req fakellm.Request) fakellm.Reply {
		time.Sleep(time.Second) // every call is in flight while the others reserve
		u := fakellm.Usage{PromptTokens: len(req.Body) / 4, CompletionTokens: 5}
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
		served.Add(int64(u.TotalTokens))
		return fakellm.Reply{Text: "ok", Usage: &u}
	})
	startCluster(t, rigs)
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range 36 {
		wg.Go(func() {
			switch code, _, body := rigs[i%3].hello(fmt.Sprintf("u%d", i)); code {
			case http.StatusOK:
				ok.Add(1)
			case http.StatusTooManyRequests:
				refused.Add(1)
				if !strings.Contains(body, `"budget_exceeded"`) || !strings.Contains(body, "the global budget") {
					t.Errorf("a refusal on n%d: %s", i%3+1, body)
				}
			default:
				t.Errorf("n%d: status %d: %s", i%3+1, code, body)
			}
		})
	}
	wg.Wait()
	t.Logf("36 concurrent requests over three nodes: %d served (%d tokens of a %d budget), %d refused", ok.Load(), served.Load(), budget, refused.Load())
	if served.Load() > budget || ok.Load() == 0 || refused.Load() == 0 {
		t.Fatalf("%d served (%d tokens of a %d budget), %d refused", ok.Load(), served.Load(), budget, refused.Load())
	}
	for i, r := range rigs {
		pollUntil(t, 15*time.Second, fmt.Sprintf("n%d's usage equals the provider's count", i+1), func() bool {
			var rep protocol.UsageReport
			_ = json.Unmarshal([]byte(r.h.must("usage", "--json").stdout), &rep)
			return rep.Total.In+rep.Total.Out == served.Load()
		})
	}
}

// A node killed with a call in flight and started again with its budgets
// taken out of its config still sweeps the cluster's holds: its earlier
// life's call stops counting on the nodes that kept their budgets (they
// never drop the holds of a node that answers).
func TestClusterRestartWithoutBudgetsGivesTheHoldBack(t *testing.T) {
	const maxTokens = 20_000 // a call's estimate: this and its prompt
	// one call in flight fits, not two
	budgets := fmt.Sprintf("  budgets:\n    - {scope: global, period: total, tokens: %d, action: block}\n", maxTokens*3/2)
	rigs := clusterNodesWith(t, 3, 3, rigOptions{gateway: "  rate_limit: {enabled: false}\n", core: budgets})
	release := make(chan struct{})
	var stuck atomic.Bool
	rigs[0].llm.SetDefault(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(string(req.Body), "stuck") {
			stuck.Store(true)
			<-release
		}
		return fakellm.Reply{Text: "ok", Usage: &fakellm.Usage{PromptTokens: 5, CompletionTokens: 5, TotalTokens: 10}}
	})
	t.Cleanup(func() { close(release) })
	startCluster(t, rigs)
	n1, n2 := rigs[0], rigs[1]
	ask := func(r *chatRig, content string) (int, string) { return tryPostCapped(r, "ana", content, maxTokens) }
	go ask(n2, "stuck") // it dies with n2
	pollUntil(t, 15*time.Second, "n2's call in flight", stuck.Load)
	n2.kill9()
	if code, body := ask(n1, "hello"); code != http.StatusTooManyRequests {
		t.Fatalf("n1's call with n2's in flight: %d %s; want 429\n%s", code, body, grepLines(n1.h.logs(), "could not be loaded"))
	}

	path := filepath.Join(n2.h.dir, "config.yaml")
	cfg, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(cfg), budgets) {
		t.Fatalf("n2's config holds no budgets to take out (%v)", err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(cfg), budgets, "", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	n2.start()
	pollUntil(t, 20*time.Second, "n1 serves again once n2 started without budgets", func() bool {
		code, _ := ask(n1, "hello")
		return code == http.StatusOK
	})
}
