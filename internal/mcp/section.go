package mcp

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/setting"
)

// Config is the mcp section of config.yaml. The package owns it: its
// defaults, Validate and Options.
type Config struct {
	ProtocolVersion string `yaml:"protocol_version"`
	MaxInlineTools  int    `yaml:"max_inline_tools"`
	// MaxRestarts within RestartWindowSeconds before a server is marked failed.
	MaxRestarts          int           `yaml:"max_restarts"`
	RestartWindowSeconds int           `yaml:"restart_window_seconds"`
	Servers              []ServerEntry `yaml:"servers"`
}

// ServerEntry is one MCP server of mcp.servers, over stdio (a child
// process) or streamable HTTP.
type ServerEntry struct {
	Name           string                      `yaml:"name"`
	Transport      string                      `yaml:"transport"`
	Command        string                      `yaml:"command"`
	Args           []string                    `yaml:"args"`
	Env            map[string]setting.EnvValue `yaml:"env"`
	Cwd            string                      `yaml:"cwd"`
	URL            string                      `yaml:"url"`
	Headers        map[string]setting.EnvValue `yaml:"headers"`
	TimeoutSeconds int                         `yaml:"timeout_seconds"`
	Enabled        bool                        `yaml:"enabled"`
	// Trust lifts the approval requirement on the server's tools.
	Trust bool `yaml:"trust"`
	// Agents that may use the server; empty means all.
	Agents []string `yaml:"agents"`
	// OAuth configures authorization for an http server (see docs/mcp.md).
	OAuth OAuthEntry `yaml:"oauth"`
}

// OAuthEntry is an http MCP server's OAuth client. All of it is optional:
// without it `beamclaw mcp login` discovers the authorization server and
// registers beamclaw dynamically.
type OAuthEntry struct {
	// ClientID and ClientSecret are a client registered with the
	// authorization server beforehand.
	ClientID     string         `yaml:"client_id"`
	ClientSecret setting.Secret `yaml:"client_secret"`
	// ClientMetadataURL is an https URL where the owner hosts a Client ID
	// Metadata Document, used as client_id where the server supports it.
	ClientMetadataURL string `yaml:"client_metadata_url"`
	// Scopes are requested in addition to those the server names.
	Scopes []string `yaml:"scopes"`
	// Grant is authorization_code (a person logs in) or
	// client_credentials (machine to machine, needs client_id and secret).
	Grant string `yaml:"grant"`
	// RedirectPort fixes the loopback redirect's port (0: any free port),
	// for a pre-registered client whose redirect URI names one.
	RedirectPort int `yaml:"redirect_port"`
}

// Default restart policy of the config (RestartPolicy's own defaults).
const (
	DefaultMaxRestarts   = 5
	DefaultRestartWindow = 30 * time.Second
)

// Transports and Grants are the values of a server's transport and
// oauth.grant.
var (
	Transports = []string{TransportStdio, TransportHTTP}
	Grants     = []string{oauth.GrantAuthorizationCode, oauth.GrantClientCredentials}
)

// DefaultConfig is the section when the file says nothing.
func DefaultConfig() Config {
	return Config{
		ProtocolVersion:      DefaultProtocolVersion,
		MaxInlineTools:       DefaultMaxInlineTools,
		MaxRestarts:          DefaultMaxRestarts,
		RestartWindowSeconds: int(DefaultRestartWindow / time.Second),
		Servers:              []ServerEntry{},
	}
}

// SetDefaults fills an entry that appears only in the file (the decoder
// starts each new list element from it).
func (s *ServerEntry) SetDefaults() {
	s.Transport = TransportStdio
	s.TimeoutSeconds = int(DefaultTimeout / time.Second)
	s.Enabled = true
}

var protocolVersionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })

// Validate records every problem of the section under p.
func (c Config) Validate(p *setting.Problems) {
	if !protocolVersionRE().MatchString(c.ProtocolVersion) {
		p.Add("protocol_version", "%q is not an MCP protocol version like 2025-11-25", c.ProtocolVersion)
	}
	p.Min("max_inline_tools", c.MaxInlineTools, 0)
	p.Min("max_restarts", c.MaxRestarts, 0)
	p.Min("restart_window_seconds", c.RestartWindowSeconds, 1)
	seen := map[string]int{}
	for i, s := range c.Servers {
		sp := p.Under(fmt.Sprintf("servers[%d]", i))
		if j, dup := seen[s.Name]; dup {
			sp.Add("name", "%q is already the name of mcp.servers[%d]", s.Name, j)
		} else {
			seen[s.Name] = i
		}
		s.validate(sp)
	}
}

func (s ServerEntry) validate(p *setting.Problems) {
	if !beamclaw.IsName(s.Name) {
		p.Add("name", "%q is not a valid name (1-64 of A-Z a-z 0-9 _ -)", s.Name)
	}
	p.Enum("transport", s.Transport, Transports)
	switch s.Transport {
	case TransportStdio:
		if s.Command == "" {
			p.Add("command", "required for transport stdio")
		}
		if s.URL != "" {
			p.Add("url", "only for transport http")
		}
	case TransportHTTP:
		p.HTTPURL("url", s.URL, true)
		if s.Command != "" {
			p.Add("command", "only for transport stdio")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if !setting.IsEnvName(k) {
			p.Add("env."+k, "not a valid environment variable name")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		if k == "" || strings.ContainsAny(k, " :\t\r\n") {
			p.Add("headers."+k, "not a valid header name")
		}
	}
	p.Min("timeout_seconds", s.TimeoutSeconds, 1)
	for j, a := range s.Agents {
		if !beamclaw.IsName(a) {
			p.Add(fmt.Sprintf("agents[%d]", j), "%q is not a valid name (1-64 of A-Z a-z 0-9 _ -)", a)
		}
	}
	s.OAuth.validate(p.Under("oauth"), s.Transport)
}

func (o OAuthEntry) validate(p *setting.Problems, transport string) {
	if o.Grant != "" {
		p.Enum("grant", o.Grant, Grants)
	}
	set := o.ClientID != "" || !o.ClientSecret.IsZero() || o.ClientMetadataURL != "" || len(o.Scopes) > 0 ||
		o.RedirectPort != 0 || o.Grant == oauth.GrantClientCredentials
	if set && transport != TransportHTTP {
		p.Add("", "only for transport http")
	}
	if o.Grant == oauth.GrantClientCredentials && (o.ClientID == "" || o.ClientSecret.IsZero()) {
		p.Add("client_id", "the client_credentials grant needs client_id and client_secret")
	}
	if !o.ClientSecret.IsZero() && o.ClientID == "" {
		p.Add("client_secret", "needs client_id")
	}
	if o.ClientMetadataURL != "" {
		if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			p.Add("client_metadata_url", "%q must be an https URL with a path", o.ClientMetadataURL)
		}
	}
	if o.RedirectPort < 0 || o.RedirectPort > 65535 {
		p.Add("redirect_port", "%d is not a port (0 picks a free one)", o.RedirectPort)
	}
	for j, sc := range o.Scopes {
		if sc == "" || strings.ContainsAny(sc, " \t\"\\") {
			p.Add(fmt.Sprintf("scopes[%d]", j), "%q is not a scope token", sc)
		}
	}
}

// Options is the section as the Manager's Options; the wiring adds the
// client version, pins, tokens, logger and events. A server whose
// variables are unset is disabled, and the error names each.
func (c Config) Options(getenv func(string) string) (Options, error) {
	servers := make([]ServerConfig, 0, len(c.Servers))
	var errs []error
	for _, s := range c.Servers {
		sc, err := s.Resolve(getenv)
		errs = append(errs, err)
		servers = append(servers, sc)
	}
	return Options{Servers: servers, ProtocolVersion: c.ProtocolVersion, MaxInlineTools: c.MaxInlineTools,
		Restart: RestartPolicy{MaxRestarts: c.MaxRestarts, Window: time.Duration(c.RestartWindowSeconds) * time.Second},
	}, errors.Join(errs...)
}

// Resolve is the entry as a ServerConfig, its env, headers and client
// secret read through getenv; an entry whose variables are unset comes
// back disabled, with an error naming each.
func (s ServerEntry) Resolve(getenv func(string) string) (ServerConfig, error) {
	sc := ServerConfig{Name: s.Name, Transport: s.Transport, Command: s.Command, Args: s.Args,
		Cwd: s.Cwd, URL: s.URL, Timeout: time.Duration(s.TimeoutSeconds) * time.Second,
		Enabled: s.Enabled, Trust: s.Trust, Agents: s.Agents}
	env, envErrs := resolveAll(s.Name, "env", s.Env, getenv)
	headers, hdrErrs := resolveAll(s.Name, "header", s.Headers, getenv)
	sc.Env, sc.Headers = env, headers
	missing := append(envErrs, hdrErrs...)
	o := s.OAuth
	sc.OAuth = oauth.Config{ClientID: o.ClientID, ClientMetadataURL: o.ClientMetadataURL, Scopes: o.Scopes,
		Grant: o.Grant, RedirectPort: o.RedirectPort}
	if !o.ClientSecret.IsZero() {
		secret, ok := o.ClientSecret.Resolve(getenv)
		if !ok {
			missing = append(missing, errors.New("mcp server "+s.Name+": oauth.client_secret: "+o.ClientSecret.Env+" is not set"))
		}
		sc.OAuth.ClientSecret = secret
	}
	if len(missing) > 0 {
		sc.Enabled = false
	}
	return sc, errors.Join(missing...)
}

// resolveAll resolves a map of literal or {env: VAR} values.
func resolveAll(server, what string, vals map[string]setting.EnvValue, getenv func(string) string) (map[string]string, []error) {
	out := make(map[string]string, len(vals))
	var errs []error
	for k, v := range vals {
		val, ok := v.Resolve(getenv)
		if !ok {
			errs = append(errs, errors.New("mcp server "+server+": "+what+" "+k+": "+v.Env+" is not set"))
			continue
		}
		out[k] = val
	}
	return out, errs
}
