package gateway

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// On a loopback bind a Host other than the loopback names (and the
// configured ones) is refused on every route but the probes: a page whose
// name was made to resolve to 127.0.0.1 (DNS rebinding) reaches nothing.
func TestHostAllowlistRefusesOtherNames(t *testing.T) {
	c := DefaultConfig()
	c.HTTP.AllowedHosts = []string{"beamclaw.example.com"}
	opts, err := c.Options(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	_, url := newTestServer(t, opts)
	cases := []struct {
		host, path string
		want       int
	}{
		{"127.0.0.1:18800", "/echo", 200},
		{"localhost:18800", "/echo", 200},
		{"LOCALHOST", "/echo", 200},
		{"[::1]:18800", "/echo", 200},
		{"beamclaw.example.com", "/echo", 200},
		{"evil.example:18800", "/echo", 421},
		{"127.0.0.1.evil.example", "/echo", 421},
		{"beamclaw.example.com.evil", "/echo", 421},
		{"evil.example", "/health", 200},
	}
	for _, tc := range cases {
		method := "POST"
		if probe(tc.path) {
			method = "GET"
		}
		req, _ := http.NewRequest(method, url+tc.path, strings.NewReader("hi"))
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %s %s: %d, want %d", tc.host, tc.path, resp.StatusCode, tc.want)
		}
	}

	c.HTTP.Addr, c.HTTP.AllowedHosts = "0.0.0.0:18800", nil
	if opts, _ := c.Options(func(string) string { return "" }); len(opts.AllowedHosts) != 0 {
		t.Errorf("a bind on every interface without allowed_hosts checks Host against %v", opts.AllowedHosts)
	}
	c.HTTP.AllowedHosts = []string{"https://x.example", "x.example:80", "*.example", "ok.example", "::1"}
	var p setting.Problems
	c.Validate(&p)
	if got := fmt.Sprint(p.Err()); strings.Count(got, "allowed_hosts") != 3 {
		t.Errorf("want 3 problems with allowed_hosts, got:\n%s", got)
	}
}

// Admit stands for the token on the requests it answers true for; the
// rest still need the token.
func TestAdmitStandsForTheToken(t *testing.T) {
	token := strings.Repeat("k", 40)
	_, url := newTestServer(t, Options{Token: token, Admit: func(r *http.Request) bool {
		return r.Header.Get("Cookie") == "signed=in"
	}})
	for _, tc := range []struct {
		cookie string
		want   int
	}{{"signed=in", 200}, {"signed=out", 401}, {"", 401}} {
		req, _ := http.NewRequest("POST", url+"/echo", strings.NewReader("hi"))
		if tc.cookie != "" {
			req.Header.Set("Cookie", tc.cookie)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("cookie %q: %d, want %d", tc.cookie, resp.StatusCode, tc.want)
		}
	}
}

// Behind a trusted TLS proxy the page's origin is https (the console's
// Origin checks and Secure cookie); the same header from anyone else
// changes nothing.
func TestForwardedProtoFromTrustedProxiesOnly(t *testing.T) {
	for _, tc := range []struct {
		trusted string
		want    string
	}{{"127.0.0.1/32", "https://"}, {"10.0.0.0/8", "http://"}} {
		trusted, err := ParseTrusted([]string{tc.trusted})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		_, url := newTestServer(t, Options{TrustedProxies: trusted, Routes: []Mount{{Method: "GET", Pattern: "/origin",
			Handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = OwnOrigin(r) })}}})
		req, _ := http.NewRequest("GET", url+"/origin", nil)
		req.Header.Set("X-Forwarded-Proto", "https")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("trusted %s: origin %q, want %s…", tc.trusted, got, tc.want)
		}
	}
}
