package oauth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// HostCheck refuses a host (a name or an IP literal) that a redirect may
// not lead to. The daemon's is the curl tool's SSRF rule
// (builtin.CheckHost with builtin.CheckPublicIP); nil refuses every host.
type HostCheck func(ctx context.Context, host string) error

// RedirectGuard is the redirect rule of every HTTP client of an MCP server
// (its connection, the OAuth discovery, registration and token requests):
// mcp-go and net/http would follow a redirect anywhere with the server's
// configured headers and, through Transport, its access token (mcp-go's
// GO-2026-6911). A redirect answer to another origin (scheme, host, port)
// than the request's is refused before it is followed; one to a host
// other than the configured server's must also pass Check. The configured
// server's own origin stays allowed as configured (a loopback server is
// legitimate when the owner names it).
type RedirectGuard struct {
	Server string // the server's name, in errors
	URL    string // the configured server URL
	Check  HostCheck
	Base   http.RoundTripper // default http.DefaultTransport
}

var _ http.RoundTripper = (*RedirectGuard)(nil)

// RedirectError is a refused redirect. It names the server and the
// target's origin only: a Location chosen by the server may carry anything
// in its path and query.
type RedirectError struct {
	Server   string
	From, To string // origins
	Cause    error  // the host check's refusal; nil for a change of origin
}

func (e *RedirectError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("mcp server %q: refused a redirect to %s: %v", e.Server, e.To, e.Cause)
	}
	return fmt.Sprintf("mcp server %q: refused a redirect from %s to another origin, %s "+
		"(the server's headers and tokens are never sent elsewhere)", e.Server, e.From, e.To)
}

func (e *RedirectError) Unwrap() error { return e.Cause }

// RoundTrip implements http.RoundTripper: it passes every answer on but a
// redirect the rule refuses, which becomes a *RedirectError.
func (g *RedirectGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	base := g.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if err := g.checkHost(req); err != nil {
		return nil, err
	}
	resp, err := base.RoundTrip(req)
	if err != nil || !isRedirect(resp.StatusCode) {
		return resp, err
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return resp, nil // net/http does not follow it either
	}
	if rerr := g.check(req, loc); rerr != nil {
		drain(resp)
		return nil, rerr
	}
	return resp, nil
}

func (g *RedirectGuard) check(req *http.Request, loc string) error {
	from := Origin(req.URL)
	target, err := req.URL.Parse(loc)
	if err != nil {
		return &RedirectError{Server: g.Server, From: from, To: "an unparsable location", Cause: err}
	}
	to := Origin(target)
	if to != from {
		return &RedirectError{Server: g.Server, From: from, To: to}
	}
	if home, err := url.Parse(g.URL); err == nil && Origin(home) == to {
		return nil
	}
	cerr := fmt.Errorf("no address check for a host other than the configured server's")
	if g.Check != nil {
		cerr = g.Check(req.Context(), target.Hostname())
	}
	if cerr != nil {
		return &RedirectError{Server: g.Server, From: from, To: to, Cause: cerr}
	}
	return nil
}

// checkHost applies Check to a request for a host other than the
// configured server's (an authorization server that discovery named, its
// token or registration endpoint): a server on a public address may not
// point beamclaw at a loopback, private or link-local one (a metadata
// service, an admin port). When the configured server is itself on such
// an address the owner runs a private deployment, and its authorization
// server may be private too.
func (g *RedirectGuard) checkHost(req *http.Request) error {
	home, err := url.Parse(g.URL)
	if g.Check == nil || err != nil || strings.EqualFold(req.URL.Hostname(), home.Hostname()) {
		return nil
	}
	ctx := req.Context()
	if g.Check(ctx, home.Hostname()) != nil {
		return nil // a private deployment
	}
	if cerr := g.Check(ctx, req.URL.Hostname()); cerr != nil {
		return &HostError{Server: g.Server, To: Origin(req.URL), Cause: cerr}
	}
	return nil
}

// HostError is a request refused because the host it names, learned from
// a public server's metadata, is not public.
type HostError struct {
	Server string
	To     string // origin
	Cause  error
}

func (e *HostError) Error() string {
	return fmt.Sprintf("mcp server %q: its authorization metadata points at %s, which is refused: %v", e.Server, e.To, e.Cause)
}

func (e *HostError) Unwrap() error { return e.Cause }

// Guard returns a copy of hc (nil: a new client) whose requests go
// through a RedirectGuard for the server at serverURL.
func Guard(hc *http.Client, server, serverURL string, check HostCheck) *http.Client {
	out := &http.Client{}
	if hc != nil {
		*out = *hc
	}
	out.Transport = &RedirectGuard{Server: server, URL: serverURL, Check: check, Base: out.Transport}
	return out
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// Origin is u's scheme, host and port ("http://example.com:80"), the
// port made explicit, so that equal origins compare equal.
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
