package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// clientName is the client_name beamclaw registers under.
const clientName = "beamclaw"

// TokenError is an error answer of a token or registration endpoint.
type TokenError struct {
	Status      int
	Code        string // error
	Description string // error_description
}

func (e *TokenError) Error() string {
	msg := fmt.Sprintf("authorization server answered %d", e.Status)
	if e.Code != "" {
		msg += ": " + e.Code
	}
	if e.Description != "" {
		msg += " (" + e.Description + ")"
	}
	return msg
}

// client is how beamclaw identifies itself at the token endpoint.
type client struct {
	ID, Secret, Method string
}

// identify picks the client: the pre-registered one of the config, a
// Client ID Metadata Document URL where the server supports them, or a
// dynamic registration.
func identify(ctx context.Context, hc *http.Client, md Metadata, cfg Config, redirect, scope string) (client, error) {
	switch {
	case cfg.ClientID != "":
		return client{ID: cfg.ClientID, Secret: cfg.ClientSecret, Method: pickMethod(md.TokenAuthMethods, cfg.ClientSecret != "")}, nil
	case cfg.ClientMetadataURL != "" && md.CIMDSupported:
		return client{ID: cfg.ClientMetadataURL, Method: AuthNone}, nil
	case md.RegistrationEndpoint != "":
		return register(ctx, hc, md, redirect, scope)
	}
	return client{}, errors.New("the authorization server has no dynamic client registration: register beamclaw with it " +
		"and set oauth.client_id (and oauth.client_secret) for this server")
}

// pickMethod chooses the token endpoint authentication of a client with
// or without a secret from what the server supports (RFC 6749's default,
// Basic, when it says nothing).
func pickMethod(supported []string, secret bool) string {
	switch {
	case !secret:
		return AuthNone
	case len(supported) == 0 || slices.Contains(supported, AuthBasic):
		return AuthBasic
	case slices.Contains(supported, AuthPost):
		return AuthPost
	}
	return AuthBasic
}

// register performs dynamic client registration (RFC 7591).
func register(ctx context.Context, hc *http.Client, md Metadata, redirect, scope string) (client, error) {
	method := AuthNone
	if len(md.TokenAuthMethods) > 0 && !slices.Contains(md.TokenAuthMethods, AuthNone) {
		method = pickMethod(md.TokenAuthMethods, true)
	}
	body := map[string]any{
		"client_name":                clientName,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{GrantAuthorizationCode, "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	}
	if scope != "" {
		body["scope"] = scope
	}
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(raw))
	if err != nil {
		return client{}, fmt.Errorf("register client: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	var out struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := doJSON(hc, req, &out); err != nil {
		return client{}, fmt.Errorf("register client: %w", err)
	}
	if out.ClientID == "" {
		return client{}, errors.New("register client: the answer has no client_id")
	}
	c := client{ID: out.ClientID, Secret: out.ClientSecret, Method: out.Method}
	if c.Method == "" {
		c.Method = pickMethod(md.TokenAuthMethods, c.Secret != "")
	}
	return c, nil
}

// tokenAnswer is a token endpoint's success answer.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// requestToken posts form to the token endpoint with the client's
// authentication.
func requestToken(ctx context.Context, hc *http.Client, endpoint string, c client, form url.Values) (tokenAnswer, error) {
	if c.Method != AuthBasic {
		form.Set("client_id", c.ID)
		if c.Method == AuthPost {
			form.Set("client_secret", c.Secret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return tokenAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if c.Method == AuthBasic {
		req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
	}
	var out tokenAnswer
	if err := doJSON(hc, req, &out); err != nil {
		return tokenAnswer{}, err
	}
	if out.AccessToken == "" {
		return tokenAnswer{}, errors.New("the token answer has no access_token")
	}
	return out, nil
}

// doJSON sends req and decodes a 2xx JSON answer into out; an error answer
// (or a 200 carrying "error", as some servers send) is a *TokenError.
func doJSON(hc *http.Client, req *http.Request, out any) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if err != nil {
		return err
	}
	var e struct {
		Code        string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(raw, &e)
	if resp.StatusCode < 200 || resp.StatusCode > 299 || e.Code != "" {
		return &TokenError{Status: resp.StatusCode, Code: e.Code, Description: e.Description}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

// apply stores a token answer in r, keeping the refresh token when a
// refresh answer has none.
func (r *Record) apply(a tokenAnswer, now time.Time) {
	r.AccessToken, r.TokenType = a.AccessToken, a.TokenType
	if a.RefreshToken != "" {
		r.RefreshToken = a.RefreshToken
	}
	if a.Scope != "" {
		r.Scope = a.Scope
	}
	r.ExpiresAt = time.Time{}
	if a.ExpiresIn > 0 {
		r.ExpiresAt = now.Add(time.Duration(a.ExpiresIn) * time.Second)
	}
}
