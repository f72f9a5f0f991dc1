package admin

import (
	"errors"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
)

// MCPServers converts config into the MCP package's options, resolving
// {env: VAR} values. A server whose variables are unset is disabled, and
// the returned error says why (the daemon logs it and starts without it).
func MCPServers(cfg *config.Config, getenv func(string) string) ([]mcp.ServerConfig, error) {
	out := make([]mcp.ServerConfig, 0, len(cfg.MCP.Servers))
	var errs []error
	for _, s := range cfg.MCP.Servers {
		sc := mcp.ServerConfig{Name: s.Name, Transport: s.Transport, Command: s.Command, Args: s.Args,
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
			errs = append(errs, missing...)
		}
		out = append(out, sc)
	}
	return out, errors.Join(errs...)
}

// resolveAll resolves a map of literal or {env: VAR} values.
func resolveAll(server, what string, vals map[string]config.EnvValue, getenv func(string) string) (map[string]string, []error) {
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
