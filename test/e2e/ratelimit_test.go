package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// limitedGet asks path of the rig's daemon as the client xff (through the
// loopback proxy, which the config trusts) and returns the status.
func (r *chatRig) limitedGet(path, xff string) int {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.addr+path, nil)
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatalf("GET %s: %v", path, err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestHealthNeverRateLimited: a busy address that is over its budget
// still gets every liveness answer.
func TestHealthNeverRateLimited(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  rate_limit: {enabled: true, requests: 5, window_seconds: 60}\n"})
	r.start()
	limited := 0
	for range 10 {
		if r.limitedGet("/v1/models", "") == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("10 requests against a budget of 5 were all admitted")
	}
	for i := range 65 {
		if code := r.limitedGet("/health", ""); code != http.StatusOK {
			t.Fatalf("health check %d answered %d while the address is rate-limited", i, code)
		}
	}
}

// TestRateLimitChurnKeepsBudget: a client that keeps sending is not
// handed a fresh budget by thousands of other addresses churning through
// the limiter's table (only the least recently seen are forgotten). The
// window is an hour: the limiter's windows are aligned to the clock, and
// once one ends the previous window's count is weighed down by the time
// since, so a 60-second window would give the victim its 61st request
// back about a second after a minute turns (the sliding window working,
// not a reset). With an hour that takes a minute past the turn, far
// longer than the test.
func TestRateLimitChurnKeepsBudget(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  trusted_proxies: [127.0.0.1]\n" +
		"  rate_limit: {enabled: true, requests: 60, window_seconds: 3600, max_clients: 100}\n"})
	r.start()
	const victim = "198.51.100.7"
	for i := range 49 {
		if code := r.limitedGet("/v1/models", victim); code != http.StatusOK {
			t.Fatalf("request %d of the victim: %d", i, code)
		}
	}
	for i := range 900 { // nine times the table
		if code := r.limitedGet("/v1/models", fmt.Sprintf("203.0.%d.%d", i/250, i%250+1)); code != http.StatusOK {
			t.Fatalf("newcomer %d: %d", i, code)
		}
		if i%90 == 89 { // 10 more, each within the last 100 clients
			if code := r.limitedGet("/v1/models", victim); code != http.StatusOK {
				t.Fatalf("a request of the victim during the churn: %d", code)
			}
		}
	}
	if code := r.limitedGet("/v1/models", victim); code != http.StatusOK {
		t.Fatalf("the victim's 60th request: %d", code)
	}
	if code := r.limitedGet("/v1/models", victim); code != http.StatusTooManyRequests {
		t.Errorf("after churn the victim's 61st request got %d: its budget was reset", code)
	}
}
