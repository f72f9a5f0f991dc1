// Package oauthserver is a local OAuth 2.1 authorization server with an
// MCP server behind it, for tests of beamclaw's MCP authorization: the
// protected resource metadata (RFC 9728), the authorization server's
// metadata (RFC 8414, issuer with a path), dynamic client registration
// (RFC 7591), the authorization code grant with PKCE S256 and the
// resource indicator (RFC 8707), refresh tokens (rotated), the
// client_credentials grant, and an MCP endpoint (the mcpfixtures tools
// through mcp-go's streamable HTTP server) that answers 401 with a
// WWW-Authenticate challenge without a valid token. It checks what a
// client sends and fails the request (and records the reason) when the
// client gets the protocol wrong. Only tests import it.
package oauthserver

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"
)

// Options shape a Server.
type Options struct {
	// TokenTTL is the access tokens' lifetime (default one hour).
	TokenTTL time.Duration
	// Scope is required of every MCP request and named in the 401
	// challenge and the PRM's scopes_supported ("" : none).
	Scope string
	// Canary prefixes every token, code and secret issued, so a test can
	// look for them where they must never appear.
	Canary string
	// ClientID and ClientSecret are a pre-registered confidential client
	// (client_secret_basic), also allowed the client_credentials grant.
	ClientID, ClientSecret string
	// MCP is the protected MCP server; default: mcpfixtures.NewServer.
	MCP *mcpserver.MCPServer
}

// Server is the running authorization and MCP server, on 127.0.0.1.
type Server struct {
	opts Options
	srv  *http.Server
	base string

	mu       sync.Mutex
	clients  map[string]clientReg
	codes    map[string]grant
	access   map[string]grant // token -> grant
	refresh  map[string]grant
	problems []string
	counts   map[string]int
}

type clientReg struct {
	secret, method string
	redirects      []string
}

type grant struct {
	client, scope, resource, challenge, redirect string
	expires                                      time.Time
}

// Start runs a Server until the test ends.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = time.Hour
	}
	if opts.MCP == nil {
		opts.MCP = mcpfixtures.NewServer(mcpfixtures.Options{})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{opts: opts, base: "http://" + ln.Addr().String(), clients: map[string]clientReg{},
		codes: map[string]grant{}, access: map[string]grant{}, refresh: map[string]grant{}, counts: map[string]int{}}
	if opts.ClientID != "" {
		s.clients[opts.ClientID] = clientReg{secret: opts.ClientSecret, method: "client_secret_basic"}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.prm)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server/as", s.metadata)
	mux.HandleFunc("POST /as/register", s.register)
	mux.HandleFunc("GET /as/authorize", s.authorize)
	mux.HandleFunc("POST /as/token", s.token)
	mux.Handle("/mcp", s.protect(mcpserver.NewStreamableHTTPServer(opts.MCP)))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	tb.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// URL is the MCP endpoint.
func (s *Server) URL() string { return s.base + "/mcp" }

// Issuer is the authorization server's issuer.
func (s *Server) Issuer() string { return s.base + "/as" }

// Count reports how often something happened: "register", "authorize",
// "token:authorization_code", "token:refresh_token",
// "token:client_credentials", "mcp:401", "mcp:ok".
func (s *Server) Count(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[what]
}

// Problems lists what clients got wrong (each also failed its request).
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

// RevokeAll forgets every access and refresh token: the next request
// gets 401 and a refresh is refused (invalid_grant).
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
	clear(s.refresh)
}

// ExpireAccessTokens ends every access token now (refresh tokens stay
// good): the client's next request gets 401 although it thinks its token
// is fresh, and must refresh it.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
}

// Tokens lists the access and refresh tokens issued and still valid.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t := range s.access {
		out = append(out, t)
	}
	for t := range s.refresh {
		out = append(out, t)
	}
	return out
}

func (s *Server) problem(w http.ResponseWriter, code, desc string) {
	s.mu.Lock()
	s.problems = append(s.problems, code+": "+desc)
	s.mu.Unlock()
	status := http.StatusBadRequest
	if code == "invalid_client" {
		status = http.StatusUnauthorized
	}
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (s *Server) count(what string) {
	s.mu.Lock()
	s.counts[what]++
	s.mu.Unlock()
}

func (s *Server) newSecret(kind string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return s.opts.Canary + kind + "-" + hex.EncodeToString(b)
}

func scopeCovers(granted, want string) bool {
	have := strings.Fields(granted)
	for _, w := range strings.Fields(want) {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}
