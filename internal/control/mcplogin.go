package control

import (
	"context"
	"net/http"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

const (
	// loginWait bounds a login the daemon runs: the browser has this long
	// to come back to the loopback listener.
	loginWait = 10 * time.Minute
	// loginAnswer bounds the wait for the authorization URL (discovery and
	// registration with the authorization server).
	loginAnswer = 30 * time.Second
)

// mcpLoginStart runs a server's login in the daemon (the console's Log
// in): it answers the authorization URL for the browser, whose redirect
// comes back to the login's loopback listener; the login then stores the
// tokens and wakes the server, as `beamclaw mcp login` does. One login
// per server at a time.
func (c *handlers) mcpLoginStart(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPLoginStart
	if !decodeBody(w, r, &req) {
		return
	}
	if c.tokens == nil || !c.serverOr404(w, req.Server) {
		if c.tokens == nil {
			c.notServer(w, req.Server)
		}
		return
	}
	if _, busy := c.loginFlows.LoadOrStore(req.Server, struct{}{}); busy {
		writeError(w, http.StatusConflict, "a login of "+req.Server+" is already waiting for its browser; finish it or wait 10 minutes")
		return
	}
	urls := make(chan string, 1)
	login, err := c.mcp.LoginFlow(req.Server, func(u string) {
		select {
		case urls <- u:
		default:
		}
	})
	if err != nil {
		c.loginFlows.Delete(req.Server)
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	done := make(chan error, 1)
	ctx, cancel := context.WithTimeout(c.life, loginWait) // the browser comes back after the request; a stop ends it
	go func() {
		defer c.loginFlows.Delete(req.Server)
		defer cancel()
		rec, err := login.Run(ctx)
		if err == nil {
			err = c.tokens.Save(ctx, rec)
		}
		if err != nil {
			c.log.Warn("mcp login from the console failed", "server", req.Server, "err", c.scrub(err.Error()))
		} else {
			c.mcp.Relogin(req.Server)
			c.log.Info("mcp server logged in", "server", req.Server, "scope", rec.Scope, "by", "console")
		}
		done <- err
	}()
	select {
	case u := <-urls:
		writeJSON(w, http.StatusOK, protocol.MCPLoginStarted{Server: req.Server, AuthURL: u})
	case err := <-done:
		if err != nil {
			writeError(w, http.StatusBadGateway, "log in to "+req.Server+": "+c.scrub(err.Error()))
			return
		}
		writeJSON(w, http.StatusOK, protocol.MCPLoginStarted{Server: req.Server, LoggedIn: true})
	case <-time.After(loginAnswer):
		cancel() // nobody will open a page it never showed
		writeError(w, http.StatusGatewayTimeout, "the authorization server of "+req.Server+" did not answer in time")
	case <-r.Context().Done():
		cancel()
	}
}
