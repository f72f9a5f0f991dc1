package oauth

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Transport is the http.RoundTripper of an MCP server's connection: it
// adds the server's access token to each request on the server's origin
// (unless the request already carries an Authorization header from
// config; a token is never sent to another origin), retries once
// with a renewed token when the server refuses one, and turns a 401 or
// 403 into an *AuthError, so that the caller sees why, with the challenge.
type Transport struct {
	Base   http.RoundTripper
	Source *Source // nil: no token is ever added
}

var _ http.RoundTripper = (*Transport)(nil)

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var (
		rec   Record
		cause error
		sent  bool
	)
	if t.Source != nil && req.Header.Get("Authorization") == "" && t.Source.covers(req.URL) {
		r, err := t.Source.Token(req.Context())
		switch {
		case err == nil:
			rec, sent = r, true
		case errors.Is(err, ErrLoginRequired):
			cause = err // try without: the server may not need one
		default:
			return nil, err
		}
	}
	resp, err := t.send(req, rec, sent)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized && sent && rec.Grant != "" {
		drain(resp)
		fresh, rerr := t.Source.Renew(req.Context(), rec)
		if rerr != nil {
			return nil, &AuthError{Challenge: ParseChallenge(resp.StatusCode, resp.Header), Cause: rerr}
		}
		if resp, err = t.retry(req, fresh); err != nil {
			return nil, err
		}
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		drain(resp)
		return nil, &AuthError{Challenge: ParseChallenge(resp.StatusCode, resp.Header), Cause: cause}
	}
	return resp, nil
}

func (t *Transport) send(req *http.Request, rec Record, withToken bool) (*http.Response, error) {
	if !withToken {
		return t.base().RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", bearer(rec))
	return t.base().RoundTrip(r)
}

// retry resends req (its body rewound) with rec's token.
func (t *Transport) retry(req *http.Request, rec Record) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return nil, fmt.Errorf("retry %s with a renewed token: the request body cannot be replayed", req.URL.Redacted())
		}
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	r.Header.Set("Authorization", bearer(rec))
	return t.base().RoundTrip(r)
}

func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

// bearer is the Authorization value; the token type is case-insensitive
// and a missing one means Bearer.
func bearer(r Record) string {
	return "Bearer " + r.AccessToken
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}
