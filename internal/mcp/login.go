package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
)

// needsLogin reports whether err means the server refused our
// credentials (or has none from us): a login, not a restart, fixes it.
func needsLogin(err error) bool {
	return errors.Is(err, oauth.ErrLoginRequired) || errors.Is(err, oauth.ErrInsufficientScope)
}

// LoginHint is the command that fixes a needs_login server.
func LoginHint(server string) string { return "beamclaw mcp login " + server }

// awaitLogin parks a server that refused our credentials in needs_login
// until Relogin wakes it (or ctx ends), then lets Serve connect again.
// The restart budget is not charged: a login, not time, fixes it.
func (s *server) awaitLogin(ctx context.Context, cause error) error {
	s.mu.Lock()
	s.attempted = true
	s.mu.Unlock()
	msg := fmt.Sprintf("%v; run `%s`", cause, LoginHint(s.cfg.Name))
	s.mu.Lock()
	s.delay = 0
	s.dropLocked(StateNeedsLogin, msg)
	s.mu.Unlock()
	s.announce(StateNeedsLogin, true) // also when it started so: one event per wait
	s.m.log.Warn("mcp server needs a login; not retrying until then", "server", s.cfg.Name,
		"fix", LoginHint(s.cfg.Name), "err", cause)
	select {
	case <-ctx.Done():
		s.drop(StateStopped, "")
		return ctx.Err()
	case <-s.wake:
		s.m.log.Info("mcp server credentials changed; connecting", "server", s.cfg.Name)
		return nil
	}
}

// Relogin tells server that its credentials changed (a login or logout
// stored them): a server waiting in needs_login connects again at once.
func (m *Manager) Relogin(server string) bool {
	for _, s := range m.servers {
		if s.cfg.Name == server {
			s.mu.Lock()
			s.needScope = ""
			s.mu.Unlock()
			select {
			case s.wake <- struct{}{}:
			default:
			}
			return true
		}
	}
	return false
}

// scopeWanted records a 403 insufficient_scope answer to a call: the
// server stays ready for other calls, and LastError names the fix.
func (s *server) scopeWanted(err error) {
	var ae *oauth.AuthError
	scope := ""
	if errors.As(err, &ae) {
		scope = ae.Scope
	}
	s.mu.Lock()
	s.lastErr = fmt.Sprintf("a call needs more permission (scope %q); run `%s`", scope, LoginHint(s.cfg.Name))
	s.needScope = scope
	s.mu.Unlock()
	s.m.emit(beamclaw.EventMCPServerState, slog.String("server", s.cfg.Name), slog.String("state", string(StateReady)),
		slog.String("needs_scope", scope))
}

// loginMissing says why cfg, an http server configured for a person's
// OAuth login (a client of its own), has no usable login: none stored, or
// the store cannot give one (oauth.ErrLoginRequired: its key file is
// damaged, say). Such a server starts in needs_login instead of being
// refused first. "" when it has a login or needs none.
func (m *Manager) loginMissing(cfg ServerConfig) string {
	o := cfg.OAuth
	if cfg.transport() != TransportHTTP || o.Grant == oauth.GrantClientCredentials || (o.ClientID == "" && o.ClientMetadataURL == "") {
		return ""
	}
	_, ok, err := m.opts.Tokens.Load(context.Background(), cfg.Name)
	switch {
	case errors.Is(err, oauth.ErrLoginRequired):
		return err.Error()
	case err == nil && !ok:
		return "not logged in"
	}
	return ""
}

// waitingForLogin returns why the server starts in needs_login, if it
// does.
func (s *server) waitingForLogin() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.missing, s.state == StateNeedsLogin && !s.attempted
}

// LoginFlow is the authorization of an http server as `beamclaw mcp
// login` runs it, for the daemon to run itself (the console's Log in):
// its URL, OAuth settings, headers, the scope it was refused for, the
// daemon's redirect rule; show gets the authorization URL.
func (m *Manager) LoginFlow(server string, show func(authURL string)) (oauth.Login, error) {
	for _, s := range m.servers {
		if s.cfg.Name != server {
			continue
		}
		if s.cfg.transport() != TransportHTTP {
			return oauth.Login{}, fmt.Errorf("MCP server %q is a %s server: only http servers log in", server, s.cfg.transport())
		}
		s.mu.Lock()
		scope := s.needScope
		s.mu.Unlock()
		return oauth.Login{Server: server, URL: s.cfg.URL, Config: s.cfg.OAuth, Headers: s.cfg.Headers, Scope: scope,
			HTTP: &http.Client{Timeout: s.cfg.timeout()}, RedirectCheck: m.opts.RedirectCheck, Clock: m.opts.Clock, Show: show}, nil
	}
	return oauth.Login{}, fmt.Errorf("no MCP server %q", server)
}
