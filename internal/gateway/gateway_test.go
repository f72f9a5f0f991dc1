package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestLimiterSlidingWindow(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0)) // aligned to a 10 s window
	l := NewLimiter(5, 10*time.Second, 100, clk)
	for i := range 5 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d denied", i)
		}
	}
	ok, retry := l.Allow("a")
	if ok || retry <= 0 {
		t.Fatalf("6th request: ok=%v retry=%v", ok, retry)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another client was limited")
	}
	// Half-way into the next window, half of the previous 5 still count.
	clk.Advance(15 * time.Second)
	allowed := 0
	for range 5 {
		if ok, _ := l.Allow("a"); ok {
			allowed++
		}
	}
	if allowed != 2 {
		t.Errorf("allowed %d in the half-overlapping window, want 2 (5 - 2.5 weighted)", allowed)
	}
	clk.Advance(30 * time.Second)
	if ok, _ := l.Allow("a"); !ok {
		t.Error("still limited after the window passed")
	}
}

func TestLimiterTableIsBounded(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	l := NewLimiter(5, time.Second, 3, clk)
	for i := range 10 {
		l.Allow(fmt.Sprint("c", i))
		clk.Advance(time.Millisecond)
	}
	if n := l.Len(); n > 3 {
		t.Fatalf("table holds %d clients, bound is 3", n)
	}
	clk.Advance(time.Minute)
	l.Prune()
	if n := l.Len(); n != 0 {
		t.Errorf("prune left %d idle clients", n)
	}
}

// PruneService prunes the limiter once a minute of the server's clock
// (in a bubble, so synctest.Wait knows when it is parked again).
func TestPruneServiceRunsEveryMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFake(time.Unix(1000, 0))
		s := New(Options{RateLimit: RateLimit{Requests: 5, Window: time.Second, MaxClients: 10}, Clock: clk})
		s.limiter.Allow("a")
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.PruneService()(ctx) }()
		synctest.Wait()
		clk.Advance(time.Minute - time.Nanosecond)
		synctest.Wait()
		if n := s.limiter.Len(); n != 1 {
			t.Fatalf("pruned before the minute passed: %d clients", n)
		}
		clk.Advance(time.Nanosecond)
		synctest.Wait()
		if n := s.limiter.Len(); n != 0 {
			t.Fatalf("%d clients left after a minute", n)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("PruneService = %v", err)
		}
	})
}

// A flood of addresses fills the table, yet every newcomer is admitted on
// its first request (the least recently seen client makes room) and the
// table never holds more than its bound (issue 23, item 5).
func TestLimiterFloodKeepsNewcomers(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	const maxClients = 100
	l := NewLimiter(60, time.Minute, maxClients, clk)
	for i := range 12000 {
		key := fmt.Sprint("flood-", i)
		for j := range 3 { // each address spends some of its budget
			if ok, _ := l.Allow(key); !ok {
				t.Fatalf("address %d refused on its request %d", i, j+1)
			}
		}
		if n := l.Len(); n > maxClients {
			t.Fatalf("table holds %d clients, bound is %d", n, maxClients)
		}
	}
	if ok, _ := l.Allow("127.0.0.1"); !ok {
		t.Error("a client that had sent nothing was refused after the flood")
	}
	if n := l.Len(); n != maxClients {
		t.Errorf("table holds %d clients, want %d", n, maxClients)
	}
}

// A client that keeps sending keeps its count however many other
// addresses arrive: only the least recently seen are forgotten, so
// churn does not hand an active client a fresh budget.
func TestLimiterChurnKeepsAnActiveBudget(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	l := NewLimiter(60, time.Minute, 100, clk)
	for range 49 {
		if ok, _ := l.Allow("victim"); !ok {
			t.Fatal("limited before the limit")
		}
	}
	for i := range 900 { // nine times the table
		if ok, _ := l.Allow(fmt.Sprint("churn-", i)); !ok {
			t.Fatalf("newcomer %d refused", i)
		}
		if i%90 == 89 { // 10 more requests, each within the last 100 clients
			if ok, _ := l.Allow("victim"); !ok {
				t.Fatal("limited before the limit")
			}
		}
	}
	if ok, _ := l.Allow("victim"); !ok {
		t.Fatal("the 60th request was refused")
	}
	if ok, _ := l.Allow("victim"); ok {
		t.Error("after 900 other addresses the active client was back to a full budget")
	}
}

// Prune forgets the idle clients and keeps the recent ones.
func TestLimiterPruneKeepsRecent(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	l := NewLimiter(5, time.Second, 10, clk)
	l.Allow("old")
	clk.Advance(3 * time.Second)
	l.Allow("new")
	l.Prune()
	if n := l.Len(); n != 1 {
		t.Fatalf("prune left %d clients, want 1", n)
	}
	if ok, _ := l.Allow("old"); !ok {
		t.Error("a forgotten client was refused")
	}
}

func TestRateKeyGroupsIPv6By64(t *testing.T) {
	cases := map[string]string{
		"2001:db8:1:2:aaaa::1": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9": "2001:db8:1:2::/64",
		"203.0.113.9":          "203.0.113.9",
		"@":                    "@",
	}
	for in, want := range cases {
		if got := rateKey(in); got != want {
			t.Errorf("rateKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClientIP(t *testing.T) {
	trusted, err := ParseTrusted([]string{"10.0.0.0/8", "192.168.1.1"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, remote, xff, want string
	}{
		{"untrusted peer ignores header", "203.0.113.9:5000", "1.2.3.4", "203.0.113.9"},
		{"trusted proxy uses header", "10.1.2.3:5000", "198.51.100.7", "198.51.100.7"},
		{"right-most untrusted hop", "10.1.2.3:5000", "6.6.6.6, 198.51.100.7, 10.9.9.9", "198.51.100.7"},
		{"garbage header falls back", "192.168.1.1:1", "not-an-ip", "192.168.1.1"},
		{"ipv6 peer", "[2001:db8::1]:443", "", "2001:db8::1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if got := clientIP(r, trusted); got != tc.want {
				t.Errorf("clientIP = %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := ParseTrusted([]string{"nope"}); err == nil {
		t.Error("bad entry accepted")
	}
}

func newTestServer(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	opts.Routes = append(opts.Routes, Mount{Method: "POST", Pattern: "/echo", Handler: http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				writeError(w, err)
				return
			}
			_, _ = w.Write(b)
		})}, Mount{Method: "GET", Pattern: "/panic", Handler: http.HandlerFunc(
		func(http.ResponseWriter, *http.Request) { panic("handler bug") })})
	s := New(opts)
	srv := httptest.NewServer(s.PublicHandler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func do(t *testing.T, method, url, token, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestAuth(t *testing.T) {
	token := strings.Repeat("k", 40)
	_, url := newTestServer(t, Options{Token: token})
	cases := []struct {
		name, path, token string
		want              int
	}{
		{"health is open", "/health", "", 200},
		{"ready is open", "/ready", "", 200},
		{"no token", "/echo", "", 401},
		{"wrong token", "/echo", strings.Repeat("x", 40), 401},
		{"prefix of token", "/echo", token[:39], 401},
		{"right token", "/echo", token, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := "POST"
			if probe(tc.path) {
				method = "GET"
			}
			resp, body := do(t, method, url+tc.path, tc.token, "hi")
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, tc.want, body)
			}
			if tc.want == 401 && !strings.Contains(body, `"type":"authentication_error"`) {
				t.Errorf("401 body not in OpenAI error shape: %s", body)
			}
		})
	}
}

// /health is liveness, always 200 with readiness in the body; /ready is
// readiness, 503 with the same body while a subsystem is not ready, and
// neither is rate-limited (issue 23, item 9).
func TestReadyAnswers503WhenNotReady(t *testing.T) {
	ready := true
	_, url := newTestServer(t, Options{RateLimit: RateLimit{Requests: 1, Window: time.Hour, MaxClients: 10},
		Health: func(context.Context) protocol.Health {
			if ready {
				return protocol.Health{Status: "ok", Ready: true}
			}
			return protocol.Health{Status: "degraded", Ready: false}
		}})
	for _, tc := range []struct {
		ready              bool
		health, readyProbe int
	}{{true, 200, 200}, {false, 200, 503}, {true, 200, 200}} {
		ready = tc.ready
		for path, want := range map[string]int{"/health": tc.health, "/ready": tc.readyProbe} {
			for range 3 { // over the rate limit's budget of 1
				resp, body := do(t, "GET", url+path, "", "")
				if resp.StatusCode != want {
					t.Fatalf("ready=%v %s: %d, want %d", tc.ready, path, resp.StatusCode, want)
				}
				if want := fmt.Sprintf(`"ready":%v`, tc.ready); !strings.Contains(body, want) {
					t.Errorf("%s body %s does not say %s", path, body, want)
				}
			}
		}
	}
}

// A route that authenticates itself (the A2A edge) is reached without the
// gateway token; its neighbours, and paths that only look like it, are not.
func TestOwnAuthRoutesSkipTheGatewayToken(t *testing.T) {
	token := strings.Repeat("k", 40)
	own := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "own") })
	_, url := newTestServer(t, Options{Token: token, Routes: []Mount{
		{Pattern: "/a2a", Handler: own, OwnAuth: true},
		{Method: "GET", Pattern: "/.well-known/agent-card.json", Handler: own, OwnAuth: true},
	}})
	cases := []struct {
		name, method, path string
		want               int
	}{
		{"subtree root", "POST", "/a2a", 200},
		{"subtree child", "POST", "/a2a/agents/coder", 200},
		{"exact route", "GET", "/.well-known/agent-card.json", 200},
		{"sibling prefix", "POST", "/a2abc", 401},
		{"other route", "POST", "/echo", 401},
		{"unknown route", "GET", "/nope", 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := do(t, tc.method, url+tc.path, "", "")
			if resp.StatusCode != tc.want {
				t.Fatalf("%s %s: status %d, want %d (%s)", tc.method, tc.path, resp.StatusCode, tc.want, body)
			}
		})
	}
}

func TestBodyLimitRecoveryAndRateLimit(t *testing.T) {
	_, url := newTestServer(t, Options{MaxBodyBytes: 16, RateLimit: RateLimit{Requests: 3, Window: time.Hour}})
	resp, body := do(t, "POST", url+"/echo", "", strings.Repeat("x", 17))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %d %s", resp.StatusCode, body)
	}
	resp, body = do(t, "GET", url+"/panic", "", "")
	if resp.StatusCode != 500 || strings.Contains(body, "handler bug") {
		t.Fatalf("panic: %d %s (internal detail must not leak)", resp.StatusCode, body)
	}
	resp, body = do(t, "GET", url+"/nope", "", "")
	if resp.StatusCode != 404 || !strings.Contains(body, `"error"`) {
		t.Fatalf("unknown route: %d %s", resp.StatusCode, body)
	}
	resp, _ = do(t, "GET", url+"/nope", "", "")
	if resp.StatusCode != 429 {
		t.Fatalf("4th request: %d, want 429", resp.StatusCode)
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

func TestHTTPServiceRestartsOnSameListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(ln)
	defer l.Release()
	s := New(Options{})
	svc := s.Service("http", l, s.PublicHandler())
	// One request per connection: a kept-alive connection of the round
	// before, or one the transport opened and left unused, would hold the
	// next shutdown until its own timeout.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for round := range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- svc.Serve(ctx) }()
		deadline := time.Now().Add(5 * time.Second)
		for {
			resp, err := hc.Get("http://" + ln.Addr().String() + "/health")
			if err == nil {
				resp.Body.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: not serving: %v", round, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != context.Canceled {
			t.Fatalf("round %d: Serve returned %v", round, err)
		}
	}
	hc.CloseIdleConnections()
}

func BenchmarkLimiterAllow(b *testing.B) {
	l := NewLimiter(1<<30, time.Minute, 10000, nil)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}).String()
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l.Allow(keys[i%len(keys)])
		i++
	}
}

// Every answer carries its request id (the one in the daemon's log line):
// a plain X-Request-Id from the client is kept, anything else is replaced
// by one of ours, and ours never repeat.
func TestRequestIDs(t *testing.T) {
	_, url := newTestServer(t, Options{})
	get := func(sent string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", url+"/health", nil)
		if sent != "" {
			req.Header.Set("X-Request-Id", sent)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.Header.Get("X-Request-Id")
	}
	if got := get("client-trace:42.a_b"); got != "client-trace:42.a_b" {
		t.Errorf("a plain client id came back as %q", got)
	}
	seen := map[string]bool{}
	for _, bad := range []string{"", "has space", "quote\"d", strings.Repeat("x", 65), "é"} {
		got := get(bad)
		if got == "" || got == bad || seen[got] {
			t.Errorf("sent %q, got %q", bad, got)
		}
		seen[got] = true
	}
}
