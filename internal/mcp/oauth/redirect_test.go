package oauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestOrigin(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"http://example.com/x", "http://EXAMPLE.com:80/y?q"},
		{"https://example.com", "https://example.com:443/"},
		{"http://[::1]:8080/a", "http://[::1]:8080/b"},
	} {
		ua, _ := url.Parse(tc.a)
		ub, _ := url.Parse(tc.b)
		if Origin(ua) != Origin(ub) {
			t.Errorf("Origin(%s) = %s, Origin(%s) = %s: want equal", tc.a, Origin(ua), tc.b, Origin(ub))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"http://example.com", "https://example.com"},
		{"http://127.0.0.1:1", "http://127.0.0.1:2"},
		{"http://localhost:1", "http://127.0.0.1:1"},
	} {
		ua, _ := url.Parse(tc.a)
		ub, _ := url.Parse(tc.b)
		if Origin(ua) == Origin(ub) {
			t.Errorf("Origin(%s) = Origin(%s) = %s: want different", tc.a, tc.b, Origin(ua))
		}
	}
}

// TestRedirectGuardChecksOtherHosts: a same-origin redirect on a host
// other than the configured server's (an authorization server's, say)
// is followed only when the host check allows it; one on the configured
// server's origin needs no check.
func TestRedirectGuardChecksOtherHosts(t *testing.T) {
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(as.Close)
	refuse := errors.New("blocked address: test")
	for _, tc := range []struct {
		name, configured string
		check            HostCheck
		wantErr          error // nil: followed
	}{
		{"on the configured origin", as.URL + "/mcp", nil, nil},
		{"elsewhere without a check", "http://mcp.example.test/mcp", nil, &RedirectError{}},
		{"elsewhere, allowed", "http://mcp.example.test/mcp", func(context.Context, string) error { return nil }, nil},
		{"elsewhere, refused", "http://mcp.example.test/mcp", func(context.Context, string) error { return refuse }, refuse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := Guard(&http.Client{Timeout: 10 * time.Second}, "web", tc.configured, tc.check)
			t.Cleanup(hc.CloseIdleConnections)
			resp, err := hc.Get(as.URL + "/old")
			if resp != nil {
				resp.Body.Close()
			}
			var re *RedirectError
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantErr == nil && resp.Request.URL.Path != "/new":
				t.Fatalf("ended at %s", resp.Request.URL)
			case tc.wantErr != nil && !errors.As(err, &re):
				t.Fatalf("err = %v, want a *RedirectError", err)
			case tc.wantErr == refuse && !errors.Is(err, refuse):
				t.Fatalf("err = %v, want the check's refusal", err)
			}
		})
	}
}

// TestTransportSendsTheTokenToTheServerOnly: the access token goes to the
// server's origin and nowhere else.
func TestTransportSendsTheTokenToTheServerOnly(t *testing.T) {
	got := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization")
	}))
	t.Cleanup(srv.Close)
	store := NewMemStore()
	ctx := context.Background()
	if err := store.Save(ctx, Record{Server: "web", URL: srv.URL + "/mcp", AccessToken: "tok-0123456789"}); err != nil {
		t.Fatal(err)
	}
	tr := &Transport{Base: http.DefaultTransport, Source: NewSource("web", srv.URL+"/mcp", Config{}, store, nil, nil)}
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)
	other := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, u := range []string{srv.URL + "/mcp", other + "/mcp"} {
		resp, err := hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if a, b := <-got, <-got; a != "Bearer tok-0123456789" || b != "" {
		t.Errorf("Authorization on the server's origin %q, on another %q", a, b)
	}
}

// A public server's metadata may not send beamclaw to a private address
// (the metadata service of a cloud, an admin port); a private deployment
// (the server itself private) may use a private authorization server.
func TestGuardRefusesPrivateHostsNamedByAPublicServer(t *testing.T) {
	private := map[string]bool{"10.0.0.7": true, "169.254.169.254": true, "mcp.lan": true}
	check := func(_ context.Context, host string) error {
		if private[host] {
			return errors.New("not a public address")
		}
		return nil
	}
	var reached []string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		reached = append(reached, r.URL.Host)
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
	})
	public := &http.Client{Transport: &RedirectGuard{Server: "fx", URL: "https://mcp.example/mcp", Check: check, Base: base}}
	for _, u := range []string{"http://169.254.169.254/latest/meta-data", "https://10.0.0.7/token"} {
		_, err := public.Get(u)
		var he *HostError
		if !errors.As(err, &he) {
			t.Errorf("GET %s for a public server: %v, want a HostError", u, err)
		}
	}
	if _, err := public.Get("https://auth.example/token"); err != nil {
		t.Errorf("a public authorization server: %v", err)
	}
	lan := &http.Client{Transport: &RedirectGuard{Server: "fx", URL: "http://mcp.lan/mcp", Check: check, Base: base}}
	if _, err := lan.Get("https://10.0.0.7/token"); err != nil {
		t.Errorf("a private deployment's private authorization server: %v", err)
	}
	if want := []string{"auth.example", "10.0.0.7"}; strings.Join(reached, ",") != strings.Join(want, ",") {
		t.Errorf("requests sent: %v, want %v (the refused ones never leave)", reached, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
