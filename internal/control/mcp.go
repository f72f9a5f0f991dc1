package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/elicit"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func (c *handlers) mcpList(w http.ResponseWriter, _ *http.Request) {
	out := protocol.MCPList{Daemon: true, Servers: []protocol.MCPServer{}}
	if c.mcp != nil {
		out.Servers = MCPServersWire(c.mcp.Status())
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *handlers) mcpTools(w http.ResponseWriter, r *http.Request) {
	server := r.URL.Query().Get("server")
	out := protocol.MCPTools{Tools: []protocol.MCPTool{}}
	if c.mcp == nil {
		if server != "" {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no MCP server named %q", server))
			return
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	if server != "" && !c.serverOr404(w, server) {
		return
	}
	out.Tools = MCPToolsWire(c.mcp.ToolInfos(server))
	writeJSON(w, http.StatusOK, out)
}

func (c *handlers) mcpAccept(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPAcceptRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if !c.serverOr404(w, req.Server) {
		return
	}
	name, err := c.mcp.Accept(req.Server, req.Tool)
	switch {
	case errors.Is(err, mcp.ErrUnknownTool):
		writeError(w, http.StatusNotFound, err.Error())
		return
	case errors.Is(err, mcp.ErrNotConnected):
		writeError(w, http.StatusConflict, err.Error())
		return
	case err != nil:
		c.fail(w, err)
		return
	}
	c.log.Info("mcp tool definition accepted", "server", req.Server, "tool", name)
	writeJSON(w, http.StatusOK, protocol.MCPAccepted{Tool: name})
}

// mcpLogin stores a login the CLI made and wakes the server.
func (c *handlers) mcpLogin(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPCredentials
	if !decodeBody(w, r, &req) {
		return
	}
	var rec oauth.Record
	if err := json.Unmarshal(req.Record, &rec); err != nil || rec.Server != req.Server || rec.AccessToken == "" {
		writeError(w, http.StatusBadRequest, "the login record is not valid")
		return
	}
	c.changeLogin(w, req.Server, func() error { return c.tokens.Save(r.Context(), rec) },
		"mcp server logged in", "scope", rec.Scope)
}

// mcpLogout forgets a server's login and wakes it (it will need one).
func (c *handlers) mcpLogout(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPLogoutRequest
	if !decodeBody(w, r, &req) {
		return
	}
	c.changeLogin(w, req.Server, func() error { return c.tokens.Delete(r.Context(), req.Server) },
		"mcp server logged out")
}

// changeLogin saves or forgets (change) the login of a server the daemon
// runs and wakes the server; logMsg and attrs make its log line.
func (c *handlers) changeLogin(w http.ResponseWriter, server string, change func() error, logMsg string, attrs ...any) {
	if c.tokens == nil {
		c.notServer(w, server)
		return
	}
	if !c.serverOr404(w, server) {
		return
	}
	if err := change(); err != nil {
		c.fail(w, err)
		return
	}
	c.mcp.Relogin(server)
	c.log.Info(logMsg, append([]any{"server", server}, attrs...)...)
	w.WriteHeader(http.StatusNoContent)
}

// mcpCall runs `beamclaw mcp call` on the live connection; the server's
// questions are answered with its defaults or declined, as asked.
func (c *handlers) mcpCall(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPCallRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if !c.serverOr404(w, req.Server) {
		return
	}
	ctx := beamclaw.WithAsker(r.Context(), FixedAsker(req.Elicit))
	res, err := c.mcp.Call(ctx, req.Server, req.Tool, req.Args)
	out := protocol.MCPCallResult{Server: req.Server, Tool: res.Tool, Text: c.scrub(res.Text), IsError: res.IsError, Notes: res.Notes}
	if len(res.Structured) > 0 {
		out.Structured = json.RawMessage(c.scrub(string(res.Structured)))
	}
	switch {
	case errors.Is(err, mcp.ErrUnknownTool):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, mcp.ErrNotConnected):
		writeError(w, http.StatusConflict, c.scrub(err.Error()))
	case err != nil:
		writeError(w, http.StatusBadGateway, c.scrub(beamclaw.UserMessage(err)))
	default:
		writeJSON(w, http.StatusOK, out)
	}
}

// serverOr404 reports whether the daemon runs an MCP server named name;
// when it does not, it answers 404.
func (c *handlers) serverOr404(w http.ResponseWriter, name string) bool {
	if c.mcp != nil && c.hasServer(name) {
		return true
	}
	c.notServer(w, name)
	return false
}

func (c *handlers) notServer(w http.ResponseWriter, name string) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("no MCP server named %q (see `beamclaw mcp list`)", name))
}

func (c *handlers) hasServer(name string) bool {
	for _, s := range c.mcp.Status() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// MCPToolsWire is the wire form of MCP tools.
func MCPToolsWire(infos []mcp.ToolInfo) []protocol.MCPTool {
	out := make([]protocol.MCPTool, 0, len(infos))
	for _, t := range infos {
		out = append(out, protocol.MCPTool{Name: t.Name, Server: t.Server, RemoteName: t.RemoteName,
			Description: t.Description, Changed: t.Changed, Trusted: t.Trusted})
	}
	return out
}

// MCPServersWire is the wire form of MCP servers' states.
func MCPServersWire(st []mcp.ServerStatus) []protocol.MCPServer {
	out := make([]protocol.MCPServer, 0, len(st))
	for _, s := range st {
		out = append(out, protocol.MCPServer{Name: s.Name, Transport: s.Transport, State: string(s.State),
			Tools: s.Tools, Restarts: s.Restarts, LastError: s.LastError, Changed: s.Changed, NeedsScope: s.NeedsScope})
	}
	return out
}

// FixedAsker answers every elicitation the same way: accept with the
// schema's defaults (protocol.ElicitDefaults) or decline.
type FixedAsker string

// Ask implements beamclaw.Asker.
func (f FixedAsker) Ask(_ context.Context, e beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	if string(f) != protocol.ElicitDefaults || e.URL != "" {
		return beamclaw.ElicitAnswer{Action: beamclaw.ElicitDecline}, nil
	}
	form, err := elicit.Parse(e.Schema)
	if err != nil {
		return beamclaw.ElicitAnswer{Action: beamclaw.ElicitDecline}, nil
	}
	return beamclaw.ElicitAnswer{Action: beamclaw.ElicitAccept, Content: form.Defaults()}, nil
}
