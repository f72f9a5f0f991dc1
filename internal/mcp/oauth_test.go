package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/obs/obstest"
	"github.com/beamclaw/beamclaw-go/test/oauthserver"
)

// login runs the authorization code flow against srv with the test as the
// browser and stores the record.
func login(t *testing.T, store oauth.Store, name, url string) oauth.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var browseErr error
	rec, err := oauth.Login{Server: name, URL: url, Show: func(u string) {
		go func() { browseErr = oauthserver.Browse(u) }()
	}}.Run(ctx)
	if err != nil {
		t.Fatalf("login: %v (browser: %v)", err, browseErr)
	}
	if err := store.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestOAuthServerNeedsLoginThenWorks: a server behind OAuth without a
// token is needs_login (no restarts, the fix named); a login wakes it; a
// short-lived token is refreshed; revoked tokens bring needs_login back.
func TestOAuthServerNeedsLoginThenWorks(t *testing.T) {
	as := oauthserver.Start(t, oauthserver.Options{TokenTTL: 30 * time.Second, Scope: "mcp:tools", Canary: "CANARY"})
	tokens := oauth.NewMemStore()
	var events obstest.Recorder
	m := run(t, Options{Tokens: tokens, Emit: events.Record,
		Servers: []ServerConfig{{Name: "web", Transport: TransportHTTP, URL: as.URL(), Enabled: true, Timeout: 20 * time.Second}}})
	waitFor(t, "needs_login", func() bool { return stateOf(m, "web").State == StateNeedsLogin })
	st := stateOf(m, "web")
	if st.Restarts != 0 || !strings.Contains(st.LastError, "beamclaw mcp login web") || !strings.Contains(st.LastError, "401") {
		t.Errorf("needs_login status = %+v", st)
	}

	login(t, tokens, "web", as.URL())
	m.Relogin("web")
	waitReady(t, m, "web")
	if got, err := call(t, m, "web__echo", `{"message":"hi"}`); err != nil || got != "Echo: hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	if as.Count("token:refresh_token") == 0 {
		t.Errorf("a token that expires within the refresh margin was not refreshed")
	}

	as.RevokeAll()
	_, err := call(t, m, "web__echo", `{"message":"again"}`)
	if !errors.Is(err, oauth.ErrLoginRequired) || !strings.Contains(err.Error(), "beamclaw mcp login web") {
		t.Fatalf("call with revoked tokens = %v", err)
	}
	waitFor(t, "needs_login again", func() bool { return stateOf(m, "web").State == StateNeedsLogin })
	if st := stateOf(m, "web"); st.Restarts != 0 {
		t.Errorf("revoked tokens cost restarts: %+v", st)
	}
	for _, p := range as.Problems() {
		if !strings.Contains(p, "refresh_token grant was refused") {
			t.Errorf("the authorization server saw a client mistake: %s", p)
		}
	}
}

// TestOAuthRefreshAfterTheServerExpiredTheToken: a token the client thinks
// fresh is refused (401); the transport refreshes it once and retries.
func TestOAuthRefreshAfterTheServerExpiredTheToken(t *testing.T) {
	as := oauthserver.Start(t, oauthserver.Options{})
	tokens := oauth.NewMemStore()
	login(t, tokens, "web", as.URL())
	m := run(t, Options{Tokens: tokens,
		Servers: []ServerConfig{{Name: "web", Transport: TransportHTTP, URL: as.URL(), Enabled: true, Timeout: 20 * time.Second}}})
	waitReady(t, m, "web")
	if n := as.Count("token:refresh_token"); n != 0 {
		t.Fatalf("%d refreshes of an hour-long token", n)
	}
	as.ExpireAccessTokens()
	if got, err := call(t, m, "web__echo", `{"message":"still here"}`); err != nil || got != "Echo: still here" {
		t.Fatalf("echo after the server expired the token = %q, %v", got, err)
	}
	if n := as.Count("token:refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	if st := stateOf(m, "web"); st.State != StateReady || st.Restarts != 0 {
		t.Errorf("status %+v", st)
	}
}

// brokenStore is a token store whose key is unusable.
type brokenStore struct{ oauth.Store }

func (brokenStore) Load(context.Context, string) (oauth.Record, bool, error) {
	return oauth.Record{}, false, fmt.Errorf("the MCP logins are unavailable (key file secrets.key is damaged): %w", oauth.ErrLoginRequired)
}

// A server whose login the store cannot give (its key file is damaged)
// starts in needs_login saying why, without restarts (issue 23, item 9).
func TestUnusableTokenStoreMeansNeedsLogin(t *testing.T) {
	as := oauthserver.Start(t, oauthserver.Options{ClientID: "beamclaw-test"})
	m := run(t, Options{Tokens: brokenStore{oauth.NewMemStore()},
		Servers: []ServerConfig{{Name: "web", Transport: TransportHTTP, URL: as.URL(), Enabled: true, Timeout: 20 * time.Second,
			OAuth: oauth.Config{ClientID: "beamclaw-test"}}}})
	waitFor(t, "needs_login", func() bool { return stateOf(m, "web").State == StateNeedsLogin })
	st := stateOf(m, "web")
	if st.Restarts != 0 || !strings.Contains(st.LastError, "secrets.key is damaged") || !strings.Contains(st.LastError, "beamclaw mcp login web") {
		t.Errorf("needs_login status = %+v", st)
	}
}
