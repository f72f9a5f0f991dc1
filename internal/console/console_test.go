package console

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// htmxSHA256 pins the vendored htmx (htmx.org 2.0.8, dist/htmx.min.js
// from the npm registry): a changed file is a deliberate upgrade.
const htmxSHA256 = "22283ef68cb7545914f0a88a1bdedc7256a703d1d580c1d255217d0a50d31313"

func TestVendoredHTMXIsPinned(t *testing.T) {
	b, err := os.ReadFile("assets/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != htmxSHA256 {
		t.Fatalf("assets/htmx.min.js is not the pinned htmx 2.0.8 (sha256 %x)", sum)
	}
}

type rig struct {
	url    string
	logins *Logins
	clock  *clock.Fake
	db     *store.DB
	token  string
}

// newRig serves the console (and an echo at /ws standing for the chat)
// through a real gateway on 127.0.0.1, over a real bbolt file and a
// small control API.
func newRig(t *testing.T, token string, trusted ...netip.Prefix) *rig {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	fc := clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	logins, err := NewLogins(db, fc, nil, token, 12*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	api := http.NewServeMux()
	api.HandleFunc("GET "+protocol.ControlAgents, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, protocol.AgentList{Agents: []protocol.Agent{{Name: "default"}, {Name: "coder"}}})
	})
	api.HandleFunc("POST "+protocol.ControlSchedJob+"/{id}/pause", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, protocol.SchedJob{ID: r.PathValue("id"), State: "paused"})
	})
	c, err := New(Options{Logins: logins, API: api, DefaultAgent: "default"})
	if err != nil {
		t.Fatal(err)
	}
	ws := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ws reached") })
	routes := append(c.Routes(), gateway.Mount{Method: http.MethodGet, Pattern: protocol.WSPath, Handler: ws})
	srv := httptest.NewServer(gateway.New(gateway.Options{Token: token, Routes: routes, Admit: c.Admit, TrustedProxies: trusted}).PublicHandler())
	t.Cleanup(srv.Close)
	return &rig{url: srv.URL, logins: logins, clock: fc, db: db, token: token}
}

// browser is an HTTP client that keeps cookies and does not follow
// redirects (the test reads them).
func browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{DisableKeepAlives: true} // no connection outlives a test (goleak)
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Jar: jar, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signedIn is a browser signed in with a fresh one-time code.
func (r *rig) signedIn(t *testing.T) *http.Client {
	t.Helper()
	b := browser(t)
	code, _, _ := r.logins.Code()
	r.signIn(t, b, code)
	return b
}

func (r *rig) signIn(t *testing.T, b *http.Client, secret string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.url+Prefix+"/login", strings.NewReader(url.Values{"secret": {secret}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", r.url)
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func get(t *testing.T, b *http.Client, u string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestOneTimeCodeSignsInOnce(t *testing.T) {
	r := newRig(t, "")
	b := browser(t)
	if resp, _ := get(t, b, r.url+Prefix+"/sessions"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != Prefix+"/login" {
		t.Fatalf("a page before signing in: %d to %q, want 303 to the login page", resp.StatusCode, resp.Header.Get("Location"))
	}
	code, _, err := r.logins.Code()
	if err != nil {
		t.Fatal(err)
	}
	resp := r.signIn(t, b, strings.ToLower(code[:4])+"-"+code[4:]) // typed as a person would
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in with a fresh code: %d", resp.StatusCode)
	}
	ck := cookieOf(resp)
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Secure || ck.Path != "/" {
		t.Fatalf("the sign-in cookie %+v, want HttpOnly, SameSite=Strict, Path=/ (Secure only with TLS)", ck)
	}
	if resp, body := get(t, b, r.url+Prefix+"/chat"); resp.StatusCode != 200 || !strings.Contains(body, `<option value="coder"`) {
		t.Fatalf("the chat page after signing in: %d\n%s", resp.StatusCode, body)
	}
	if resp := r.signIn(t, browser(t), code); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the same code a second time: %d, want 401", resp.StatusCode)
	}
	late, _, _ := r.logins.Code()
	r.clock.Advance(CodeTTL)
	if resp := r.signIn(t, browser(t), late); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a code after %s: %d, want 401", CodeTTL, resp.StatusCode)
	}
}

// status sends req and returns its status, the body read and closed.
func status(t *testing.T, b *http.Client, req *http.Request) int {
	t.Helper()
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func cookieOf(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == CookieName {
			return c
		}
	}
	return nil
}

// No token or code is ever taken from the address, and a wrong guess
// counts against everyone: after 20, even the token waits.
func TestSecretsNeverFromTheURLAndGuessesAreBounded(t *testing.T) {
	token := strings.Repeat("t", 40)
	r := newRig(t, token)
	b := browser(t)
	for _, u := range []string{Prefix + "/login?token=" + token, Prefix + "/?token=" + token, Prefix + "/login#token=" + token} {
		resp, body := get(t, b, r.url+u)
		if cookieOf(resp) != nil {
			t.Fatalf("GET %s signed in", u)
		}
		if strings.HasPrefix(u, Prefix+"/login?") && !strings.Contains(body, "never used") {
			t.Errorf("the login page does not say a secret in the address is not used:\n%s", body)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, r.url+Prefix+"/login?secret="+token, nil)
	if code := status(t, b, req); code != http.StatusUnauthorized {
		t.Fatalf("POST with the token in the query: %d, want 401", code)
	}
	if resp := r.signIn(t, b, strings.Repeat("x", 40)); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %d", resp.StatusCode)
	}
	for range maxFailures {
		r.signIn(t, browser(t), "AAAA-AAAA")
	}
	code, _, _ := r.logins.Code()
	if resp := r.signIn(t, browser(t), code); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a valid code after %d wrong guesses: %d, want 429", maxFailures, resp.StatusCode)
	}
	if resp := r.signIn(t, b, token); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the token after %d wrong guesses from others: %d, want it to sign in", maxFailures, resp.StatusCode)
	}
	r.clock.Advance(CodeTTL)
	code, _, _ = r.logins.Code()
	if resp := r.signIn(t, browser(t), code); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a code once the guesses aged out: %d", resp.StatusCode)
	}
	// A form posted from another site (login CSRF) is refused.
	req, _ = http.NewRequest(http.MethodPost, r.url+Prefix+"/login", strings.NewReader("secret="+token))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if code := status(t, b, req); code != http.StatusForbidden {
		t.Fatalf("a sign-in posted from another origin: %d, want 403", code)
	}
}

// Every change needs the login's CSRF token from the console's origin;
// every response carries the CSP; sign-out ends the login at once.
func TestChangesNeedTheCSRFTokenAndSignOutEndsTheLogin(t *testing.T) {
	r := newRig(t, "")
	b := r.signedIn(t)
	resp, body := get(t, b, r.url+Prefix+"/chat")
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("CSP %q", csp)
	}
	_, after, ok := strings.Cut(body, `name="csrf-token" content="`)
	csrf, _, _ := strings.Cut(after, `"`)
	if !ok || len(csrf) < 40 {
		t.Fatalf("no CSRF token in the page")
	}
	pause := func(token, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, r.url+Prefix+"/jobs/j1/pause", nil)
		req.Header.Set("HX-Request", "true")
		if token != "" {
			req.Header.Set("X-CSRF-Token", token)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := b.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		name, token, origin string
		want                int
	}{
		{"no token", "", r.url, 403},
		{"wrong token", strings.Repeat("x", len(csrf)), r.url, 403},
		{"other origin", csrf, "https://evil.example", 403},
		{"the page's token", csrf, r.url, 200},
	} {
		if got := pause(tc.token, tc.origin); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, r.url+Prefix+"/logout", strings.NewReader("csrf="+csrf))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if code := status(t, b, req); code != http.StatusSeeOther {
		t.Fatalf("sign out: %d", code)
	}
	if resp, _ := get(t, b, r.url+Prefix+"/chat"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a page after signing out: %d, want 303 to the login", resp.StatusCode)
	}
}

// The sign-in stands for the token on /ws only, with the console's own
// Origin; it survives a restart (the logins are in bbolt) and ends after
// session_hours.
func TestSignInStandsForTheTokenOnTheChatOnly(t *testing.T) {
	token := strings.Repeat("t", 40)
	r := newRig(t, token)
	b := browser(t)
	if resp := r.signIn(t, b, token); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in with the token: %d", resp.StatusCode)
	}
	for _, tc := range []struct {
		name, path, origin string
		want               int
	}{
		{"the chat from the console", protocol.WSPath, r.url, 200},
		{"the chat from another site", protocol.WSPath, "https://evil.example", 401},
		{"the chat without Origin", protocol.WSPath, "", 401},
		{"another route", "/v1/models", r.url, 401},
	} {
		if resp, _ := get(t, b, r.url+tc.path, "Origin", tc.origin); resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
	reopened, err := NewLogins(r.db, r.clock, nil, token, 12*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(r.url)
	ck := b.Jar.Cookies(u)[0].Value
	if _, ok := reopened.Lookup(ck); !ok {
		t.Error("the login was lost when the logins were opened again (a restart)")
	}
	rotated, err := NewLogins(r.db, r.clock, nil, strings.Repeat("r", 40), 12*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rotated.Lookup(ck); ok {
		t.Error("the login outlived a change of the gateway token")
	}
	r.clock.Advance(12 * time.Hour)
	if _, ok := reopened.Lookup(ck); ok {
		t.Error("the login outlived session_hours")
	}
}

// The console's files come gzipped and, under their hashed URL, cached
// for good; the first paint (HTML + CSS + JS, gzip) stays small.
func TestAssetsAreGzippedAndCached(t *testing.T) {
	r := newRig(t, "")
	b := r.signedIn(t)
	_, page := get(t, b, r.url+Prefix+"/chat")
	total := len(page)
	for _, name := range []string{"console.css", "htmx.min.js", "console.js"} {
		_, after, ok := strings.Cut(page, Prefix+"/assets/"+name+"?v=")
		if !ok {
			t.Fatalf("the page does not load %s", name)
		}
		v, _, _ := strings.Cut(after, `"`)
		tr := &http.Transport{DisableCompression: true, DisableKeepAlives: true}
		req, _ := http.NewRequest(http.MethodGet, r.url+Prefix+"/assets/"+name+"?v="+v, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: encoding %q, cache %q", name, resp.Header.Get("Content-Encoding"), resp.Header.Get("Cache-Control"))
		}
		total += len(body)
	}
	t.Logf("first paint of the chat page: %d bytes (HTML + gzipped CSS and JS)", total)
	if total > 100<<10 {
		t.Errorf("first paint %d bytes, over 100 KB", total)
	}
}

// Every page's template parses and every asset is prepared (the console
// makes them on its first request, not at the daemon's start).
func TestPagesAndAssetsBuild(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.built()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"login", "error", "chat", "sessions", "session", "approvals", "agents", "agent", "file",
		"skills", "mcp", "jobs", "runs", "sandboxes", "usage", "events", "config"} {
		if b.pages[name] == nil {
			t.Errorf("no page %s", name)
		}
	}
	for _, name := range []string{"console.css", "console.js", "htmx.min.js", "icon.svg"} {
		if b.hashes[name] == "" || len(b.gz[name]) == 0 {
			t.Errorf("asset %s not prepared", name)
		}
	}
}

// Behind a TLS proxy the operator trusts, the sign-in cookie is Secure
// and the proxy's https origin is the console's own; a client that only
// claims to be behind one gets neither.
func TestBehindATrustedTLSProxy(t *testing.T) {
	for _, tc := range []struct {
		trusted string
		secure  bool
	}{{"127.0.0.1/32", true}, {"10.0.0.0/8", false}} {
		r := newRig(t, "", netip.MustParsePrefix(tc.trusted))
		code, _, _ := r.logins.Code()
		origin := strings.Replace(r.url, "http://", "https://", 1)
		req, _ := http.NewRequest(http.MethodPost, r.url+Prefix+"/login", strings.NewReader(url.Values{"secret": {code}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		req.Header.Set("X-Forwarded-Proto", "https")
		resp, err := browser(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ck := cookieOf(resp)
		if got := ck != nil && ck.Secure; got != tc.secure {
			t.Errorf("trusted %s: signed in with a Secure cookie = %v (status %d), want %v", tc.trusted, got, resp.StatusCode, tc.secure)
		}
	}
}
