package oauthserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) prm(w http.ResponseWriter, _ *http.Request) {
	doc := map[string]any{"resource": s.URL(), "authorization_servers": []string{s.Issuer()}}
	if s.opts.Scope != "" {
		doc["scopes_supported"] = strings.Fields(s.opts.Scope)
	}
	writeJSON(w, http.StatusOK, doc)
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                s.Issuer(),
		"authorization_endpoint":                s.Issuer() + "/authorize",
		"token_endpoint":                        s.Issuer() + "/token",
		"registration_endpoint":                 s.Issuer() + "/register",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic", "client_secret_post"},
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		Method       string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		s.problem(w, "invalid_client_metadata", "registration without redirect_uris")
		return
	}
	s.count("register")
	id := s.newSecret("client")
	reg := clientReg{method: req.Method, redirects: req.RedirectURIs}
	out := map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": req.Method}
	if req.Method != "none" && req.Method != "" {
		reg.secret = s.newSecret("secret")
		out["client_secret"] = reg.secret
	} else {
		reg.method, out["token_endpoint_auth_method"] = "none", "none"
	}
	s.mu.Lock()
	s.clients[id] = reg
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, out)
}

// authorize approves at once (the test is the user) after checking the
// request, and redirects with a code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	reg, ok := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	switch {
	case !ok:
		s.problem(w, "invalid_client", "unknown client_id")
		return
	case len(reg.redirects) > 0 && !slices.Contains(reg.redirects, redirect):
		s.problem(w, "invalid_request", "redirect_uri not registered")
		return
	case q.Get("response_type") != "code":
		s.problem(w, "unsupported_response_type", "want code")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		s.problem(w, "invalid_request", "PKCE S256 is required")
		return
	case q.Get("resource") != s.URL():
		s.problem(w, "invalid_target", "resource must be "+s.URL()+", got "+q.Get("resource"))
		return
	case !scopeCovers(q.Get("scope"), s.opts.Scope):
		s.problem(w, "invalid_scope", "scope must include "+s.opts.Scope)
		return
	}
	s.count("authorize")
	code := s.newSecret("code")
	s.mu.Lock()
	s.codes[code] = grant{client: q.Get("client_id"), scope: q.Get("scope"), resource: q.Get("resource"),
		challenge: q.Get("code_challenge"), redirect: redirect}
	s.mu.Unlock()
	u, _ := url.Parse(redirect)
	v := u.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	u.RawQuery = v.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.problem(w, "invalid_request", "bad form")
		return
	}
	client, ok := s.authenticate(r)
	if !ok {
		s.problem(w, "invalid_client", "client authentication failed")
		return
	}
	gt := r.PostForm.Get("grant_type")
	var g grant
	s.mu.Lock()
	switch gt {
	case "authorization_code":
		g, ok = s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		ok = ok && g.client == client && g.redirect == r.PostForm.Get("redirect_uri") &&
			base64.RawURLEncoding.EncodeToString(sum[:]) == g.challenge && r.PostForm.Get("resource") == g.resource
	case "refresh_token":
		g, ok = s.refresh[r.PostForm.Get("refresh_token")]
		delete(s.refresh, r.PostForm.Get("refresh_token")) // rotated: good once
		ok = ok && g.client == client && r.PostForm.Get("resource") == g.resource
	case "client_credentials":
		g = grant{client: client, scope: r.PostForm.Get("scope"), resource: r.PostForm.Get("resource")}
		ok = client == s.opts.ClientID && client != "" && g.resource == s.URL()
	default:
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		s.problem(w, "invalid_grant", "the "+gt+" grant was refused")
		return
	}
	s.count("token:" + gt)
	at := s.newSecret("at")
	g.expires = time.Now().Add(s.opts.TokenTTL)
	out := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(s.opts.TokenTTL / time.Second),
		"scope": g.scope}
	s.mu.Lock()
	s.access[at] = g
	if gt != "client_credentials" {
		rt := s.newSecret("rt")
		s.refresh[rt] = g
		out["refresh_token"] = rt
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// authenticate checks the client's credentials as it registered them.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		reg, known := s.clients[id]
		return id, known && reg.secret == secret && reg.method == "client_secret_basic"
	}
	id := r.PostForm.Get("client_id")
	reg, known := s.clients[id]
	switch {
	case !known:
		return "", false
	case reg.method == "client_secret_post":
		return id, r.PostForm.Get("client_secret") == reg.secret
	}
	return id, reg.method == "none"
}

// protect answers 401 with the challenge unless the request carries a
// valid token for the MCP resource with the required scope.
func (s *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		g, ok := s.access[token]
		s.mu.Unlock()
		if !found || !ok || time.Now().After(g.expires) || g.resource != s.URL() || !scopeCovers(g.scope, s.opts.Scope) {
			s.count("mcp:401")
			ch := `Bearer resource_metadata="` + s.base + `/.well-known/oauth-protected-resource/mcp"`
			if s.opts.Scope != "" {
				ch += `, scope="` + s.opts.Scope + `"`
			}
			if found {
				ch += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", ch)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
			return
		}
		s.count("mcp:ok")
		next.ServeHTTP(w, r)
	})
}
