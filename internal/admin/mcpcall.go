package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/scrub"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// maxLogins bounds the logins one `mcp call` may need (a first login and
// a step-up), so a server that keeps refusing cannot loop.
const maxLogins = 2

// MCPCallOptions say how `mcp call` answers what the server asks.
type MCPCallOptions struct {
	Elicit string         // protocol.ElicitAsk (Asker), ElicitDefaults, ElicitDecline
	Asker  beamclaw.Asker // asks on the terminal, for ElicitAsk
	// Show presents an authorization URL when a login is needed on the
	// way (none yet, or a step-up); nil fails with the hint instead.
	Show func(authURL string)
}

// MCPCall runs one tool with the agent's trust, pinning and scrubbing:
// through the running daemon's connection, or, without a daemon, on a
// connection of its own with the database's pins and logins.
func (a *Admin) MCPCall(ctx context.Context, server, tool string, args json.RawMessage, elicitMode string, asker beamclaw.Asker,
	show func(authURL string)) (protocol.MCPCallResult, error) {
	o := MCPCallOptions{Elicit: elicitMode, Asker: asker, Show: show}
	cfg, err := a.load()
	if err != nil {
		return protocol.MCPCallResult{}, err
	}
	sc, err := a.mcpServerConfig(cfg, server)
	if err != nil {
		return protocol.MCPCallResult{}, err
	}
	if len(args) > 0 && !json.Valid(args) {
		return protocol.MCPCallResult{}, &control.UserError{Msg: "the arguments are not JSON: " + string(args), Err: mcp.ErrUnknownTool}
	}
	req := protocol.MCPCallRequest{Server: server, Tool: tool, Args: args, Elicit: o.Elicit}
	if req.Elicit == protocol.ElicitAsk {
		req.Elicit = protocol.ElicitDecline // the daemon has no terminal
	}
	var out protocol.MCPCallResult
	if ok, err := controlDo(ctx, cfg.Paths.Socket, http.MethodPost, protocol.ControlMCPCall, req, &out); ok || err != nil {
		return out, err
	}
	return a.callLocal(ctx, cfg, sc, tool, args, o)
}

// callLocal runs the server in this process for one call.
func (a *Admin) callLocal(ctx context.Context, cfg config.Loaded, sc mcp.ServerConfig, tool string, args json.RawMessage,
	o MCPCallOptions) (protocol.MCPCallResult, error) {
	db, err := store.Open(cfg.Paths.DB, store.Options{PIDFile: cfg.Paths.PIDFile})
	if err != nil {
		return protocol.MCPCallResult{}, err
	}
	defer db.Close()
	scrubber := scrub.New()
	for _, v := range cfg.SecretValues(a.getenv) {
		scrubber.Add(v)
	}
	tokens, err := MCPTokenStore(db, cfg.Paths.KeyFile, func(secrets ...string) {
		for _, v := range secrets {
			scrubber.Add(v)
		}
	})
	if err != nil {
		return protocol.MCPCallResult{}, err
	}
	pins, err := store.NewKV(db, mcp.PinBucket)
	if err != nil {
		return protocol.MCPCallResult{}, err
	}
	// The section's Options, narrowed to the one server, started once.
	mo, _ := cfg.MCP.Options(a.getenv)
	mo.Servers, mo.Restart = []mcp.ServerConfig{sc}, mcp.RestartPolicy{MaxRestarts: 1, Window: time.Minute}
	mo.ClientVersion, mo.Pins, mo.Tokens, mo.RedirectCheck = a.opts.Build.Version, pins, tokens, MCPRedirectCheck
	m, err := mcp.New(mo)
	if err != nil {
		return protocol.MCPCallResult{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	sup := supervise.New("mcp-call", supervise.Options{Contain: true})
	for _, svc := range m.Services() {
		sup.Add(svc)
	}
	done := sup.ServeBackground(ctx)
	defer func() { cancel(); <-done }()

	lc := localCall{a: a, m: m, sc: sc, tokens: tokens, show: o.Show}
	res, err := lc.run(beamclaw.WithAsker(ctx, callAsker(o)), tool, args)
	out := protocol.MCPCallResult{Server: sc.Name, Tool: res.Tool, Text: scrubber.String(res.Text),
		IsError: res.IsError, Notes: res.Notes}
	if len(res.Structured) > 0 {
		out.Structured = json.RawMessage(scrubber.String(string(res.Structured)))
	}
	if err != nil {
		return out, control.Plain(errors.New(scrubber.String(err.Error())))
	}
	return out, nil
}

// localCall is one call on an in-process server, logging in on the way
// when the server asks for it (at most maxLogins times).
type localCall struct {
	a      *Admin
	m      *mcp.Manager
	sc     mcp.ServerConfig
	tokens oauth.Store
	show   func(string)
}

func (lc localCall) run(ctx context.Context, tool string, args json.RawMessage) (mcp.CallResult, error) {
	name := lc.sc.Name
	for logins := 0; ; {
		st, err := lc.m.Wait(ctx, name, mcp.StateReady, mcp.StateNeedsLogin, mcp.StateFailed)
		if err != nil {
			return mcp.CallResult{}, err
		}
		switch st.State {
		case mcp.StateFailed:
			return mcp.CallResult{}, fmt.Errorf("mcp server %q failed: %s", name, st.LastError)
		case mcp.StateNeedsLogin:
			if logins >= maxLogins || lc.show == nil {
				return mcp.CallResult{}, fmt.Errorf("mcp server %q needs a login: %s", name, st.LastError)
			}
			logins++
			if err := lc.login(ctx, ""); err != nil {
				return mcp.CallResult{}, err
			}
			continue
		}
		res, err := lc.m.Call(ctx, name, tool, args)
		if errors.Is(err, oauth.ErrInsufficientScope) && logins < maxLogins && lc.show != nil {
			logins++
			var ae *oauth.AuthError
			scope := ""
			if errors.As(err, &ae) {
				scope = ae.Scope
			}
			if err := lc.login(ctx, scope); err != nil {
				return mcp.CallResult{}, err
			}
			continue
		}
		return res, err
	}
}

// login authorizes (again), adding scope to what was granted, stores the
// login and wakes the server.
func (lc localCall) login(ctx context.Context, scope string) error {
	prev, ok, err := lc.tokens.Load(ctx, lc.sc.Name)
	if err != nil {
		return err
	}
	if ok && prev.URL == lc.sc.URL {
		scope = prev.Scope + " " + scope
	}
	rec, err := oauth.Login{Server: lc.sc.Name, URL: lc.sc.URL, Config: lc.sc.OAuth, Headers: lc.sc.Headers, Scope: scope,
		HTTP: &http.Client{Timeout: lc.sc.Timeout}, RedirectCheck: MCPRedirectCheck, Clock: clock.System, Show: lc.show}.Run(ctx)
	if err != nil {
		return fmt.Errorf("log in to MCP server %q: %w", lc.sc.Name, err)
	}
	if err := lc.tokens.Save(ctx, rec); err != nil {
		return err
	}
	lc.m.Relogin(lc.sc.Name)
	return nil
}

// callAsker answers elicitations as the options say.
func callAsker(o MCPCallOptions) beamclaw.Asker {
	if o.Elicit == protocol.ElicitAsk && o.Asker != nil {
		return o.Asker
	}
	return control.FixedAsker(o.Elicit)
}
