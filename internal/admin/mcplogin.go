package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// loginTimeout bounds the wait for the browser.
const loginTimeout = 10 * time.Minute

// MCPRedirectCheck is the address rule of an MCP server's redirects away
// from its configured origin (mcp.Options.RedirectCheck,
// oauth.Login.RedirectCheck): the curl tool's SSRF guard.
func MCPRedirectCheck(ctx context.Context, host string) error {
	return builtin.CheckHost(ctx, builtin.CheckPublicIP, nil, host)
}

// MCPLogin authorizes beamclaw for an http MCP server. The flow runs in
// this process (show presents the authorization URL; a loopback listener
// takes the redirect). The login is then handed to the running daemon
// over the control socket, which stores it and reconnects the server at
// once, or, without a daemon, sealed into the database directly.
func (a *Admin) MCPLogin(ctx context.Context, name string, show func(authURL string)) (protocol.MCPLogin, error) {
	cfg, err := a.load()
	if err != nil {
		return protocol.MCPLogin{}, err
	}
	sc, err := a.mcpServerConfig(cfg, name)
	if err != nil {
		return protocol.MCPLogin{}, err
	}
	if sc.Transport != mcp.TransportHTTP {
		return protocol.MCPLogin{}, &control.UserError{Msg: fmt.Sprintf("MCP server %q is a %s server: only http servers log in", name, sc.Transport),
			Err: mcp.ErrUnknownTool}
	}
	var list protocol.MCPList
	daemon, err := controlDo(ctx, cfg.Paths.Socket, http.MethodGet, protocol.ControlMCP, nil, &list)
	if err != nil {
		return protocol.MCPLogin{}, err
	}
	scope := ""
	if daemon {
		for _, s := range list.Servers {
			if s.Name == name {
				scope = s.NeedsScope
			}
		}
	} else if prev, ok, err := a.storedLogin(cfg.Paths, name); err != nil {
		return protocol.MCPLogin{}, err
	} else if ok && prev.URL == sc.URL {
		scope = prev.Scope
	}
	ctx, cancel := context.WithTimeout(ctx, loginTimeout)
	defer cancel()
	rec, err := oauth.Login{Server: name, URL: sc.URL, Config: sc.OAuth, Headers: sc.Headers, Scope: scope,
		HTTP: &http.Client{Timeout: sc.Timeout}, RedirectCheck: MCPRedirectCheck, Clock: clock.System, Show: show}.Run(ctx)
	if err != nil {
		return protocol.MCPLogin{}, fmt.Errorf("log in to MCP server %q: %w", name, err)
	}
	if err := a.storeLogin(ctx, cfg.Paths, daemon, rec); err != nil {
		return protocol.MCPLogin{}, err
	}
	out := protocol.MCPLogin{Server: name, Scope: rec.Scope, Refresh: rec.RefreshToken != "", Daemon: daemon}
	if !rec.ExpiresAt.IsZero() {
		out.ExpiresAt = rec.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return out, nil
}

// storeLogin hands rec to the daemon, or seals it into the database.
func (a *Admin) storeLogin(ctx context.Context, paths config.Paths, daemon bool, rec oauth.Record) error {
	if daemon {
		raw, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		ok, err := controlDo(ctx, paths.Socket, http.MethodPost, protocol.ControlMCPLogin,
			protocol.MCPCredentials{Server: rec.Server, Record: raw}, nil)
		if ok || err != nil {
			return err
		}
		// The daemon stopped meanwhile: store it ourselves.
	}
	return withTokens(paths, func(ts oauth.Store) error { return ts.Save(ctx, rec) })
}

// storedLogin reads name's record from the database (no daemon runs).
func (a *Admin) storedLogin(paths config.Paths, name string) (oauth.Record, bool, error) {
	var (
		rec oauth.Record
		ok  bool
	)
	err := withTokens(paths, func(ts oauth.Store) error {
		var err error
		rec, ok, err = ts.Load(context.Background(), name)
		return err
	})
	return rec, ok, err
}

// MCPLogout forgets a server's login: the daemon's (which then finds the
// server needs a login again) or the database's.
func (a *Admin) MCPLogout(ctx context.Context, name string) error {
	cfg, err := a.load()
	if err != nil {
		return err
	}
	if _, err := a.mcpServerConfig(cfg, name); err != nil {
		return err
	}
	ok, err := controlDo(ctx, cfg.Paths.Socket, http.MethodPost, protocol.ControlMCPLogout, protocol.MCPLogoutRequest{Server: name}, nil)
	if ok || err != nil {
		return err
	}
	return withTokens(cfg.Paths, func(ts oauth.Store) error { return ts.Delete(ctx, name) })
}

// withTokens opens the database's token store for fn when no daemon
// holds it.
func withTokens(paths config.Paths, fn func(oauth.Store) error) error {
	db, err := store.Open(paths.DB, store.Options{PIDFile: paths.PIDFile})
	if err != nil {
		return err
	}
	ts, err := MCPTokenStore(db, paths.KeyFile, nil)
	if err == nil {
		err = fn(ts)
	}
	if cerr := db.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	return err
}
