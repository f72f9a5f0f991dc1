package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxMetadata bounds a metadata document or token answer.
const maxMetadata = 1 << 20

// protocolVersion is sent on discovery requests (made before initialize).
const protocolVersion = "2025-11-25"

// Metadata is what discovery learned about a server's authorization.
type Metadata struct {
	// Resource is the RFC 8707 resource indicator, from the PRM; "" for a
	// 2025-03-26 server without one (no indicator is sent then).
	Resource        string
	ScopesSupported []string // the PRM's scopes_supported

	Issuer                string
	AuthorizationEndpoint string
	TokenEndpoint         string
	RegistrationEndpoint  string
	TokenAuthMethods      []string
	CIMDSupported         bool
}

type prmDoc struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

type asDoc struct {
	Issuer                 string   `json:"issuer"`
	AuthorizationEndpoint  string   `json:"authorization_endpoint"`
	TokenEndpoint          string   `json:"token_endpoint"`
	RegistrationEndpoint   string   `json:"registration_endpoint"`
	TokenAuthMethods       []string `json:"token_endpoint_auth_methods_supported"`
	CIMDSupported          bool     `json:"client_id_metadata_document_supported"`
	CodeChallengeMethods   []string `json:"code_challenge_methods_supported"`
	GrantTypesSupported    []string `json:"grant_types_supported"`
	ResponseTypesSupported []string `json:"response_types_supported"`
}

// Discover finds the authorization server of the MCP server at serverURL:
// the protected resource metadata named by the challenge, else at the
// path-based then the root well-known location; the authorization
// server's metadata at the RFC 8414 and OpenID locations of its issuer
// (the issuer must match); and, for a server without PRM (2025-03-26),
// the metadata at its origin or the default /authorize, /token and
// /register endpoints there.
func Discover(ctx context.Context, hc *http.Client, serverURL string, ch Challenge) (Metadata, error) {
	su, err := url.Parse(serverURL)
	if err != nil || (su.Scheme != "http" && su.Scheme != "https") || su.Host == "" {
		return Metadata{}, fmt.Errorf("server url %q is not an http(s) URL", serverURL)
	}
	prm, found, err := findPRM(ctx, hc, su, ch.ResourceMetadata)
	if err != nil {
		return Metadata{}, err
	}
	if !found {
		return legacyMetadata(ctx, hc, su)
	}
	if len(prm.AuthorizationServers) == 0 {
		return Metadata{}, errors.New("protected resource metadata names no authorization server")
	}
	md := Metadata{Resource: prm.Resource, ScopesSupported: prm.ScopesSupported}
	if md.Resource == "" {
		md.Resource = canonical(su)
	} else if !binds(md.Resource, su) {
		return Metadata{}, fmt.Errorf("protected resource metadata is for %q, not %q: refusing it", md.Resource, serverURL)
	}
	issuer := prm.AuthorizationServers[0]
	as, ok, err := findAS(ctx, hc, issuer)
	if err != nil {
		return Metadata{}, err
	}
	if !ok {
		return Metadata{}, fmt.Errorf("authorization server %s publishes no metadata", issuer)
	}
	if strings.TrimSuffix(as.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		return Metadata{}, fmt.Errorf("authorization server metadata names issuer %q, not %q", as.Issuer, issuer)
	}
	return fill(md, as)
}

// legacyMetadata is the 2025-03-26 discovery: the authorization base URL
// is the server's origin.
func legacyMetadata(ctx context.Context, hc *http.Client, su *url.URL) (Metadata, error) {
	base := su.Scheme + "://" + su.Host
	as, ok, err := fetchJSON[asDoc](ctx, hc, base+"/.well-known/oauth-authorization-server")
	if err != nil {
		return Metadata{}, err
	}
	if !ok {
		as = asDoc{Issuer: base, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token",
			RegistrationEndpoint: base + "/register"}
	}
	return fill(Metadata{}, as)
}

func fill(md Metadata, as asDoc) (Metadata, error) {
	md.Issuer, md.AuthorizationEndpoint, md.TokenEndpoint = as.Issuer, as.AuthorizationEndpoint, as.TokenEndpoint
	md.RegistrationEndpoint, md.TokenAuthMethods, md.CIMDSupported = as.RegistrationEndpoint, as.TokenAuthMethods, as.CIMDSupported
	for name, u := range map[string]string{"authorization_endpoint": md.AuthorizationEndpoint, "token_endpoint": md.TokenEndpoint,
		"registration_endpoint": md.RegistrationEndpoint} {
		if u == "" && name != "registration_endpoint" {
			return Metadata{}, fmt.Errorf("authorization server metadata lacks %s", name)
		}
		if p, err := url.Parse(u); u != "" && (err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "") {
			return Metadata{}, fmt.Errorf("authorization server metadata: %s %q is not an http(s) URL", name, u)
		}
	}
	return md, nil
}

// findPRM fetches the protected resource metadata.
func findPRM(ctx context.Context, hc *http.Client, su *url.URL, advertised string) (prmDoc, bool, error) {
	if advertised != "" {
		doc, ok, err := fetchJSON[prmDoc](ctx, hc, advertised)
		if err != nil || !ok {
			return prmDoc{}, false, fmt.Errorf("protected resource metadata at %s: %w", advertised, orNotFound(err))
		}
		return doc, true, nil
	}
	root := su.Scheme + "://" + su.Host + "/.well-known/oauth-protected-resource"
	var tries []string
	if p := strings.TrimSuffix(su.EscapedPath(), "/"); p != "" {
		tries = append(tries, root+p)
	}
	for _, u := range append(tries, root) {
		doc, ok, err := fetchJSON[prmDoc](ctx, hc, u)
		if err != nil {
			return prmDoc{}, false, err
		}
		if ok {
			return doc, true, nil
		}
	}
	return prmDoc{}, false, nil
}

// findAS tries the metadata locations of issuer in the spec's order.
func findAS(ctx context.Context, hc *http.Client, issuer string) (asDoc, bool, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return asDoc{}, false, fmt.Errorf("authorization server %q is not a URL", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	p := strings.Trim(u.EscapedPath(), "/")
	tries := []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	if p != "" {
		tries = []string{origin + "/.well-known/oauth-authorization-server/" + p,
			origin + "/.well-known/openid-configuration/" + p, origin + "/" + p + "/.well-known/openid-configuration"}
	}
	for _, t := range tries {
		doc, ok, err := fetchJSON[asDoc](ctx, hc, t)
		if err != nil {
			return asDoc{}, false, err
		}
		if ok {
			return doc, true, nil
		}
	}
	return asDoc{}, false, nil
}

func orNotFound(err error) error {
	if err != nil {
		return err
	}
	return errors.New("not found")
}

// fetchJSON GETs u; a non-200 answer is ok=false, not an error (the next
// location is tried), a transport failure or bad JSON is an error.
func fetchJSON[T any](ctx context.Context, hc *http.Client, u string) (T, bool, error) {
	var zero T
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return zero, false, fmt.Errorf("metadata %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	resp, err := hc.Do(req)
	if err != nil {
		return zero, false, fmt.Errorf("metadata %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
		return zero, false, nil
	}
	var v T
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&v); err != nil {
		return zero, false, fmt.Errorf("metadata %s: %w", u, err)
	}
	return v, true, nil
}

// binds reports whether the PRM's resource names the addressed server:
// same scheme and host, and a path equal to the server's or a segment
// prefix of it (a server at /mcp may declare its origin).
func binds(resource string, su *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || !strings.EqualFold(r.Scheme, su.Scheme) || !strings.EqualFold(r.Host, su.Host) || r.Fragment != "" {
		return false
	}
	rp, sp := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(su.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

// canonical is the resource indicator of a server URL: no fragment.
func canonical(su *url.URL) string {
	c := *su
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}
