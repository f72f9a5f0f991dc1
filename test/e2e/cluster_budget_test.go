package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// A budget holds across the cluster with calls in flight on every node
// at once: 36 slow requests spread over three nodes against a global
// budget of about ten turns are served within it, the rest refused with
// 429 budget_exceeded on whichever node they reached, and every node's
// beamclaw usage equals the provider's own count.
func TestClusterBudgetHoldsAcrossNodes(t *testing.T) {
	const budget = 15_000 // about ten turns of ~1,500 tokens
	rigs := clusterNodesWith(t, 3, 3, rigOptions{gateway: "  rate_limit: {enabled: false}\n",
		core: fmt.Sprintf("  budgets:\n    - {scope: global, period: day, tokens: %d, action: block}\n", budget)})
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
				if !strings.Contains(body, `"budget_exceeded"`) || !strings.Contains(body, "daily global budget") {
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
