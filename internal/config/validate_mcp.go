package config

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/setting"
)

func validateMCPServer(p *problems, key string, s *MCPServer) {
	p.Enum(key+".transport", s.Transport, MCPTransports)
	switch s.Transport {
	case "stdio":
		if s.Command == "" {
			p.Add(key+".command", "required for transport stdio")
		}
		if s.URL != "" {
			p.Add(key+".url", "only for transport http")
		}
	case "http":
		p.HTTPURL(key+".url", s.URL, true)
		if s.Command != "" {
			p.Add(key+".command", "only for transport stdio")
		}
	}
	for _, k := range sortedKeys(s.Env) {
		if !setting.IsEnvName(k) {
			p.Add(key+".env."+k, "not a valid environment variable name")
		}
	}
	for _, k := range sortedKeys(s.Headers) {
		if k == "" || strings.ContainsAny(k, " :\t\r\n") {
			p.Add(key+".headers."+k, "not a valid header name")
		}
	}
	p.Min(key+".timeout_seconds", s.TimeoutSeconds, 1)
	for j, a := range s.Agents {
		p.name(fmt.Sprintf("%s.agents[%d]", key, j), a)
	}
	validateMCPOAuth(p, key+".oauth", s)
}

func validateMCPOAuth(p *problems, key string, s *MCPServer) {
	o := &s.OAuth
	if o.Grant != "" {
		p.Enum(key+".grant", o.Grant, MCPOAuthGrants)
	}
	set := o.ClientID != "" || !o.ClientSecret.IsZero() || o.ClientMetadataURL != "" || len(o.Scopes) > 0 ||
		o.RedirectPort != 0 || o.Grant == "client_credentials"
	if set && s.Transport != "http" {
		p.Add(key, "only for transport http")
	}
	if o.Grant == "client_credentials" && (o.ClientID == "" || o.ClientSecret.IsZero()) {
		p.Add(key+".client_id", "the client_credentials grant needs client_id and client_secret")
	}
	if !o.ClientSecret.IsZero() && o.ClientID == "" {
		p.Add(key+".client_secret", "needs client_id")
	}
	if o.ClientMetadataURL != "" {
		if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			p.Add(key+".client_metadata_url", "%q must be an https URL with a path", o.ClientMetadataURL)
		}
	}
	if o.RedirectPort < 0 || o.RedirectPort > 65535 {
		p.Add(key+".redirect_port", "%d is not a port (0 picks a free one)", o.RedirectPort)
	}
	for j, sc := range o.Scopes {
		if sc == "" || strings.ContainsAny(sc, " \t\"\\") {
			p.Add(fmt.Sprintf("%s.scopes[%d]", key, j), "%q is not a scope token", sc)
		}
	}
}
