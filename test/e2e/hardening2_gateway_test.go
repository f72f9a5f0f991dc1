package e2e

import (
	"fmt"
	"net/http"
	"testing"
)

// TestHardening2RateLimitFloodKeepsNewcomers (issue 23, item 5): a flood
// of source addresses, far more than the limiter's table holds, does not
// lock out a client that has sent nothing: every address is admitted on
// its first request, and so is a fresh client afterwards (one behind the
// trusted proxy and the proxy's own address).
func TestHardening2RateLimitFloodKeepsNewcomers(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  trusted_proxies: [127.0.0.1/32]\n" +
		"  rate_limit: {enabled: true, requests: 60, window_seconds: 3600, max_clients: 100}\n"})
	r.start()
	refused := 0
	for i := range 1000 {
		if r.limitedGet("/v1/models", fmt.Sprintf("203.0.%d.%d", i/250, i%250+1)) == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused > 0 {
		t.Errorf("%d of 1,000 addresses got 429 on their first request (table of 100)", refused)
	}
	if code := r.limitedGet("/v1/models", "198.51.100.99"); code != http.StatusOK {
		t.Errorf("a fresh client behind the proxy got %d after the flood", code)
	}
	if code := r.limitedGet("/v1/models", ""); code != http.StatusOK {
		t.Errorf("a fresh client on 127.0.0.1 got %d after the flood", code)
	}
}
