package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Login describes one authorization of a server.
type Login struct {
	Server  string
	URL     string            // the MCP server's URL
	Config  Config            // mcp.servers[i].oauth
	Headers map[string]string // the server's static headers (sent on the probe)
	HTTP    *http.Client      // default: a new client; it is used through a RedirectGuard
	// RedirectCheck is the address rule of redirects away from the
	// server's origin (RedirectGuard.Check).
	RedirectCheck HostCheck
	Clock         clock.Clock
	// Challenge is the one a failed request got (a 403 asking for more
	// scope); without it the server is probed with an unauthenticated
	// initialize.
	Challenge *Challenge
	// Scope is added to the request (scopes granted before, for a step-up).
	Scope string
	// Show presents the authorization URL to the user (print it on a line
	// of its own, open a browser). Required for the authorization code
	// grant.
	Show func(authURL string)
}

// Run authorizes beamclaw for the server and returns the record to store:
// the client_credentials grant directly, or the authorization code grant
// with PKCE S256, the resource indicator and a loopback redirect that Run
// listens on until the browser comes back or ctx ends.
func (l Login) Run(ctx context.Context) (Record, error) {
	hc := Guard(l.HTTP, l.Server, l.URL, l.RedirectCheck)
	clk := clock.Or(l.Clock)
	ch, err := l.challenge(ctx, hc)
	if err != nil {
		return Record{}, err
	}
	md, err := Discover(ctx, hc, l.URL, ch)
	if err != nil {
		return Record{}, fmt.Errorf("discover the authorization server: %w", err)
	}
	scope := l.selectScope(ch, md)
	rec := Record{Server: l.Server, URL: l.URL, Resource: md.Resource, Issuer: md.Issuer,
		TokenEndpoint: md.TokenEndpoint, Grant: l.Config.grant()}
	if rec.Grant == GrantClientCredentials {
		c := client{ID: l.Config.ClientID, Secret: l.Config.ClientSecret,
			Method: pickMethod(md.TokenAuthMethods, l.Config.ClientSecret != "")}
		if c.ID == "" {
			return Record{}, errors.New("the client_credentials grant needs oauth.client_id and oauth.client_secret")
		}
		rec.ClientID, rec.ClientSecret, rec.AuthMethod = c.ID, c.Secret, c.Method
		form := url.Values{"grant_type": {GrantClientCredentials}}
		setOpt(form, "scope", scope)
		setOpt(form, "resource", md.Resource)
		a, err := requestToken(ctx, hc, md.TokenEndpoint, c, form)
		if err != nil {
			return Record{}, fmt.Errorf("client_credentials token request: %w", err)
		}
		rec.apply(a, clk.Now())
		return rec, nil
	}
	return l.authorize(ctx, hc, clk, md, scope, rec)
}

func (l Login) authorize(ctx context.Context, hc *http.Client, clk clock.Clock, md Metadata, scope string, rec Record) (Record, error) {
	if l.Show == nil {
		return Record{}, errors.New("the authorization code grant needs a person: run `beamclaw mcp login " + l.Server + "`")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(l.Config.RedirectPort))
	if err != nil {
		return Record{}, fmt.Errorf("listen for the redirect: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	c, err := identify(ctx, hc, md, l.Config, redirect, scope)
	if err != nil {
		return Record{}, err
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return Record{}, err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return Record{}, err
	}
	q := url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {redirect}, "state": {state},
		"code_challenge": {transport.GenerateCodeChallenge(verifier)}, "code_challenge_method": {"S256"}}
	setOpt(q, "scope", scope)
	setOpt(q, "resource", md.Resource)
	sep := "?"
	if strings.Contains(md.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	codes := make(chan callback, 1)
	srv := &http.Server{Handler: callbackHandler(state, codes), ReadHeaderTimeout: defaultHeaderTimeout}
	go func() { _ = srv.Serve(ln) }()
	defer func() { // let a page being written finish, then close
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
	}()
	l.Show(md.AuthorizationEndpoint + sep + q.Encode())
	var cb callback
	select {
	case <-ctx.Done():
		return Record{}, fmt.Errorf("waiting for the authorization: %w", ctx.Err())
	case cb = <-codes:
	}
	if cb.err != nil {
		return Record{}, cb.err
	}
	form := url.Values{"grant_type": {GrantAuthorizationCode}, "code": {cb.code}, "redirect_uri": {redirect},
		"code_verifier": {verifier}}
	setOpt(form, "resource", md.Resource)
	a, err := requestToken(ctx, hc, md.TokenEndpoint, c, form)
	if err != nil {
		return Record{}, fmt.Errorf("exchange the authorization code: %w", err)
	}
	rec.ClientID, rec.ClientSecret, rec.AuthMethod = c.ID, c.Secret, c.Method
	rec.apply(a, clk.Now())
	if rec.Scope == "" {
		rec.Scope = scope
	}
	return rec, nil
}

type callback struct {
	code string
	err  error
}

// callbackHandler takes the first redirect with the right state.
func callbackHandler(state string, out chan<- callback) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/callback" || q.Get("state") != state {
			http.Error(w, "not the redirect beamclaw is waiting for", http.StatusBadRequest)
			return
		}
		cb := callback{code: q.Get("code")}
		if e := q.Get("error"); e != "" || cb.code == "" {
			cb.err = &TokenError{Status: http.StatusBadRequest, Code: e, Description: q.Get("error_description")}
			if e == "" {
				cb.err = errors.New("the redirect carries no authorization code")
			}
		}
		// The page first: once the code is handed over the login may end
		// and close this server before the browser had its answer.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "beamclaw is authorized. You can close this window."
		if cb.err != nil {
			msg = "Authorization failed: " + cb.err.Error()
		}
		_, _ = io.WriteString(w, "<!doctype html><title>beamclaw</title><p>"+html.EscapeString(msg)+"</p>")
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case out <- cb:
		default:
		}
	})
}

// challenge returns the known challenge or probes the server for one.
func (l Login) challenge(ctx context.Context, hc *http.Client) (Challenge, error) {
	if l.Challenge != nil {
		return *l.Challenge, nil
	}
	body := `{"jsonrpc":"2.0","id":"beamclaw-auth-probe","method":"initialize","params":{"protocolVersion":"` +
		protocolVersion + `","capabilities":{},"clientInfo":{"name":"beamclaw","version":"probe"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.URL, strings.NewReader(body))
	if err != nil {
		return Challenge{}, fmt.Errorf("probe %s: %w", l.URL, err)
	}
	for k, v := range l.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return Challenge{}, fmt.Errorf("probe %s: %w", l.URL, err)
	}
	resp.Body.Close()
	return ParseChallenge(resp.StatusCode, resp.Header), nil
}

// selectScope follows the spec's strategy: the challenge's scope, else
// the PRM's scopes_supported, else none; plus configured and earlier
// scopes.
func (l Login) selectScope(ch Challenge, md Metadata) string {
	named := ch.Scope
	if named == "" {
		named = strings.Join(md.ScopesSupported, " ")
	}
	return unionScopes(l.Scope, named, strings.Join(l.Config.Scopes, " "))
}

func setOpt(v url.Values, k, val string) {
	if val != "" {
		v.Set(k, val)
	}
}
