package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Refresh margins: a token is refreshed when it has less than
// refreshBefore left, so a request never carries one that expires on
// the way.
const (
	refreshBefore        = 60 * time.Second
	defaultHeaderTimeout = 10 * time.Second
)

// Source hands out a server's current access token, refreshing it before
// it expires (or fetching a new one with client_credentials) and saving
// what it gets. Safe for concurrent use: one refresh at a time, since a
// refresh token may be good for a single use.
type Source struct {
	server, url string
	cfg         Config
	store       Store
	hc          *http.Client
	clock       clock.Clock
	mu          sync.Mutex
}

// NewSource returns the token source of the server at serverURL. hc makes
// the token requests (never through Transport).
func NewSource(server, serverURL string, cfg Config, store Store, hc *http.Client, clk clock.Clock) *Source {
	if hc == nil {
		hc = Guard(nil, server, serverURL, nil)
	}
	return &Source{server: server, url: serverURL, cfg: cfg, store: store, hc: hc, clock: clock.Or(clk)}
}

// covers reports whether u is on the server's origin, the only one its
// token is for.
func (s *Source) covers(u *url.URL) bool {
	su, err := url.Parse(s.url)
	return err == nil && Origin(su) == Origin(u)
}

// Token returns a usable record. It fails with ErrLoginRequired when there
// is none, when it was made for another URL, or when the authorization
// server refuses the refresh token.
func (s *Source) Token(ctx context.Context) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok, err := s.store.Load(ctx, s.server)
	if err != nil {
		return Record{}, fmt.Errorf("load token of %s: %w", s.server, err)
	}
	if ok && r.URL != s.url {
		ok = false // logged in to another URL: that token is not for this server
	}
	if !ok {
		if s.cfg.grant() == GrantClientCredentials {
			return s.fetch(ctx)
		}
		return Record{}, ErrLoginRequired
	}
	if r.ExpiresAt.IsZero() || s.clock.Now().Add(refreshBefore).Before(r.ExpiresAt) {
		return r, nil
	}
	return s.renew(ctx, r)
}

// Renew refreshes the token now (a server refused it before its time).
func (s *Source) Renew(ctx context.Context, stale Record) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok, err := s.store.Load(ctx, s.server)
	if err != nil {
		return Record{}, fmt.Errorf("load token of %s: %w", s.server, err)
	}
	if !ok {
		return Record{}, ErrLoginRequired
	}
	if r.AccessToken != stale.AccessToken {
		return r, nil // another request renewed it meanwhile
	}
	return s.renew(ctx, r)
}

// renew refreshes r or fetches a new client_credentials token.
func (s *Source) renew(ctx context.Context, r Record) (Record, error) {
	if r.RefreshToken == "" {
		if r.Grant == GrantClientCredentials {
			return s.fetch(ctx)
		}
		if s.clock.Now().Before(r.ExpiresAt) {
			return r, nil
		}
		return Record{}, fmt.Errorf("the access token expired and there is no refresh token: %w", ErrLoginRequired)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {r.RefreshToken}}
	setOpt(form, "resource", r.Resource)
	a, err := requestToken(ctx, s.hc, r.TokenEndpoint, client{ID: r.ClientID, Secret: r.ClientSecret, Method: r.AuthMethod}, form)
	var te *TokenError
	switch {
	case errors.As(err, &te) && te.Status >= 400 && te.Status < 500:
		return Record{}, fmt.Errorf("the refresh token was refused (%w): %w", err, ErrLoginRequired)
	case err != nil:
		return Record{}, fmt.Errorf("refresh the token of %s: %w", s.server, err)
	}
	r.apply(a, s.clock.Now())
	if err := s.store.Save(ctx, r); err != nil {
		return Record{}, fmt.Errorf("save the refreshed token of %s: %w", s.server, err)
	}
	return r, nil
}

// fetch runs the client_credentials grant and saves the token.
func (s *Source) fetch(ctx context.Context) (Record, error) {
	r, err := Login{Server: s.server, URL: s.url, Config: s.cfg, HTTP: s.hc, Clock: s.clock}.Run(ctx)
	if err != nil {
		return Record{}, err
	}
	if err := s.store.Save(ctx, r); err != nil {
		return Record{}, fmt.Errorf("save the token of %s: %w", s.server, err)
	}
	return r, nil
}

// AuthError is a 401 or 403 answer of the MCP server: a login (or more
// scope) is needed. errors.Is matches ErrInsufficientScope for a 403
// insufficient_scope and ErrLoginRequired otherwise.
type AuthError struct {
	Challenge
	Cause error // why no usable token was sent, if that is known
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("the server answered %d %s", e.Status, http.StatusText(e.Status))
	if e.detail() != "" {
		msg += ": " + e.detail()
	}
	if e.Challenge.Error == "insufficient_scope" && e.Scope != "" {
		msg += fmt.Sprintf(" (needs scope %q)", e.Scope)
	}
	if e.Cause != nil && !errors.Is(e.Cause, ErrLoginRequired) {
		msg += "; " + e.Cause.Error()
	}
	return msg
}

// detail is the challenge's error code and description.
func (e *AuthError) detail() string {
	s := e.Challenge.Error
	if e.Description != "" {
		if s != "" {
			s += " - "
		}
		s += e.Description
	}
	return s
}

func (e *AuthError) Unwrap() error {
	if e.Status == http.StatusForbidden && e.Challenge.Error == "insufficient_scope" {
		return ErrInsufficientScope
	}
	return ErrLoginRequired
}
