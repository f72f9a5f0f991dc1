package oauth

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// Grants a server may use.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

// Token endpoint client authentication methods (RFC 7591 §2).
const (
	AuthNone  = "none"
	AuthBasic = "client_secret_basic"
	AuthPost  = "client_secret_post"
)

// Errors callers may check with errors.Is.
var (
	// ErrLoginRequired: no usable token (none stored, the refresh token
	// was refused, or the server refused the token): `beamclaw mcp login`.
	ErrLoginRequired = errors.New("login required")
	// ErrInsufficientScope: the server wants scopes the token lacks.
	ErrInsufficientScope = errors.New("insufficient scope")
)

// Config is one server's OAuth settings (mcp.servers[i].oauth), secrets
// already resolved.
type Config struct {
	ClientID     string
	ClientSecret string
	// ClientMetadataURL is an HTTPS URL the user hosts a Client ID
	// Metadata Document at; used as client_id where the server supports it.
	ClientMetadataURL string
	Scopes            []string // requested in addition to those the server names
	Grant             string   // GrantAuthorizationCode (default) or GrantClientCredentials
	RedirectPort      int      // loopback port of the redirect; 0 picks one
}

// Grant returns c.Grant or the default.
func (c Config) grant() string {
	if c.Grant == "" {
		return GrantAuthorizationCode
	}
	return c.Grant
}

// Record is what is stored for one server: where its authorization server
// is, the client it registered, and the tokens. Every string but the
// endpoints is secret.
type Record struct {
	Server        string    `json:"server"`
	URL           string    `json:"url"` // the MCP server URL the login was for
	Resource      string    `json:"resource,omitempty"`
	Issuer        string    `json:"issuer,omitempty"`
	TokenEndpoint string    `json:"token_endpoint"`
	ClientID      string    `json:"client_id"`
	ClientSecret  string    `json:"client_secret,omitempty"`
	AuthMethod    string    `json:"auth_method,omitempty"`
	Grant         string    `json:"grant"`
	AccessToken   string    `json:"access_token"`
	TokenType     string    `json:"token_type,omitempty"`
	RefreshToken  string    `json:"refresh_token,omitempty"`
	Scope         string    `json:"scope,omitempty"`
	ExpiresAt     time.Time `json:"expires_at,omitzero"`
}

// Secrets lists the record's secret values, for a scrubber.
func (r Record) Secrets() []string {
	var out []string
	for _, s := range []string{r.AccessToken, r.RefreshToken, r.ClientSecret} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Store keeps one Record per server. Load reports ok=false when there is
// none. Implementations must be safe for concurrent use.
type Store interface {
	Load(ctx context.Context, server string) (Record, bool, error)
	Save(ctx context.Context, r Record) error
	Delete(ctx context.Context, server string) error
}

// MemStore is a Store in memory.
type MemStore struct {
	mu   sync.Mutex
	recs map[string]Record
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{recs: map[string]Record{}} }

// Load returns the record of server.
func (s *MemStore) Load(_ context.Context, server string) (Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[server]
	return r, ok, nil
}

// Save stores r.
func (s *MemStore) Save(_ context.Context, r Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs[r.Server] = r
	return nil
}

// Delete forgets server's record.
func (s *MemStore) Delete(_ context.Context, server string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.recs, server)
	return nil
}

// unionScopes joins the space-separated scope lists, without duplicates,
// in first-seen order.
func unionScopes(lists ...string) string {
	var out []string
	for _, l := range lists {
		for _, s := range strings.Fields(l) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, " ")
}

// Bucket is the database bucket the daemon seals records in.
const Bucket = "mcp_oauth"
