package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/sandbox"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// maxControlBody bounds a control request body.
const maxControlBody = 64 << 10

// control serves the CLI's routes on the control socket: MCP state and
// pairing, which need the running daemon's memory or its database.
type control struct {
	sessions  Sessions
	mcp       *mcp.Manager // nil without MCP
	db        *store.DB
	tokens    oauth.Store // MCP OAuth logins; nil without MCP
	scrub     func(string) string
	pairing   *pairing.Store
	paths     config.Paths
	log       *slog.Logger
	sandbox   *sandbox.Manager // nil unless sandbox.enabled
	gate      *sandbox.Gate
	scheduler Scheduler // nil unless scheduler.enabled
}

// ControlDeps is what the control routes work on: the daemon's live MCP
// manager and its logins (nil without MCP), its scrubber, its database.
type ControlDeps struct {
	Sessions Sessions // the daemon's sessions
	MCP      *mcp.Manager
	Tokens   oauth.Store
	Scrub    func(string) string // nil: nothing to scrub
	DB       *store.DB
	Paths    config.Paths
	Log      *slog.Logger
	// Sandbox and SandboxGate are the code sandbox (nil unless
	// sandbox.enabled).
	Sandbox     *sandbox.Manager
	SandboxGate *sandbox.Gate
	// Scheduler is the running scheduler (nil unless scheduler.enabled).
	Scheduler Scheduler
}

// ControlRoutes returns the routes the daemon serves on its control
// socket for the CLI (beamclaw mcp list|tools|accept|login|logout|call,
// beamclaw pair ..., beamclaw sandbox status|list|kill).
func ControlRoutes(d ControlDeps) []gateway.Mount {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Scrub == nil {
		d.Scrub = func(s string) string { return s }
	}
	c := &control{sessions: d.Sessions, mcp: d.MCP, tokens: d.Tokens, scrub: d.Scrub, db: d.DB, pairing: pairing.New(d.DB, pairing.Options{}),
		paths: d.Paths, log: d.Log, sandbox: d.Sandbox, gate: d.SandboxGate, scheduler: d.Scheduler}
	return append(c.routes(), c.schedulerRoutes()...)
}

func (c *control) routes() []gateway.Mount {
	return []gateway.Mount{
		{Method: http.MethodGet, Pattern: protocol.ControlMCP, Handler: http.HandlerFunc(c.mcpList)},
		{Method: http.MethodGet, Pattern: protocol.ControlMCPTools, Handler: http.HandlerFunc(c.mcpTools)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPAccept, Handler: http.HandlerFunc(c.mcpAccept)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPLogin, Handler: http.HandlerFunc(c.mcpLogin)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPLogout, Handler: http.HandlerFunc(c.mcpLogout)},
		{Method: http.MethodPost, Pattern: protocol.ControlMCPCall, Handler: http.HandlerFunc(c.mcpCall)},
		{Method: http.MethodGet, Pattern: protocol.ControlPairing, Handler: http.HandlerFunc(c.pairList)},
		{Method: http.MethodPost, Pattern: protocol.ControlPairingApprove, Handler: http.HandlerFunc(c.pairApprove)},
		{Method: http.MethodPost, Pattern: protocol.ControlPairingRevoke, Handler: http.HandlerFunc(c.pairRevoke)},
		{Method: http.MethodGet, Pattern: protocol.ControlDBBackup, Handler: http.HandlerFunc(c.dbBackup)},
		{Method: http.MethodGet, Pattern: protocol.ControlDBCheck, Handler: http.HandlerFunc(c.dbCheck)},
		{Method: http.MethodGet, Pattern: protocol.ControlSessions, Handler: http.HandlerFunc(c.sessionsList)},
		{Method: http.MethodGet, Pattern: protocol.ControlSession + "/{id}", Handler: http.HandlerFunc(c.sessionShow)},
		{Method: http.MethodDelete, Pattern: protocol.ControlSession + "/{id}", Handler: http.HandlerFunc(c.sessionDelete)},
		{Method: http.MethodGet, Pattern: protocol.ControlSandbox, Handler: http.HandlerFunc(c.sandboxStatus)},
		{Method: http.MethodGet, Pattern: protocol.ControlSandboxContainers, Handler: http.HandlerFunc(c.sandboxList)},
		{Method: http.MethodPost, Pattern: protocol.ControlSandboxKill, Handler: http.HandlerFunc(c.sandboxKill)},
	}
}

func (c *control) mcpList(w http.ResponseWriter, _ *http.Request) {
	out := protocol.MCPList{Daemon: true, Servers: []protocol.MCPServer{}}
	if c.mcp != nil {
		out.Servers = MCPServersWire(c.mcp.Status())
	}
	controlJSON(w, http.StatusOK, out)
}

func (c *control) mcpTools(w http.ResponseWriter, r *http.Request) {
	server := r.URL.Query().Get("server")
	out := protocol.MCPTools{Tools: []protocol.MCPTool{}}
	if c.mcp == nil {
		if server != "" {
			controlError(w, http.StatusNotFound, fmt.Sprintf("no MCP server named %q", server))
			return
		}
		controlJSON(w, http.StatusOK, out)
		return
	}
	if server != "" && !c.hasServer(server) {
		controlError(w, http.StatusNotFound, fmt.Sprintf("no MCP server named %q (see `beamclaw mcp list`)", server))
		return
	}
	out.Tools = MCPToolsWire(c.mcp.ToolInfos(server))
	controlJSON(w, http.StatusOK, out)
}

func (c *control) mcpAccept(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPAcceptRequest
	if !decodeControl(w, r, &req) {
		return
	}
	if c.mcp == nil || !c.hasServer(req.Server) {
		controlError(w, http.StatusNotFound, fmt.Sprintf("no MCP server named %q (see `beamclaw mcp list`)", req.Server))
		return
	}
	name, err := c.mcp.Accept(req.Server, req.Tool)
	switch {
	case errors.Is(err, mcp.ErrUnknownTool):
		controlError(w, http.StatusNotFound, err.Error())
		return
	case errors.Is(err, mcp.ErrNotConnected):
		controlError(w, http.StatusConflict, err.Error())
		return
	case err != nil:
		c.fail(w, err)
		return
	}
	c.log.Info("mcp tool definition accepted", "server", req.Server, "tool", name)
	controlJSON(w, http.StatusOK, protocol.MCPAccepted{Tool: name})
}

// mcpLogin stores a login the CLI made and wakes the server.
func (c *control) mcpLogin(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPCredentials
	if !decodeControl(w, r, &req) {
		return
	}
	var rec oauth.Record
	if err := json.Unmarshal(req.Record, &rec); err != nil || rec.Server != req.Server || rec.AccessToken == "" {
		controlError(w, http.StatusBadRequest, "the login record is not valid")
		return
	}
	if c.mcp == nil || c.tokens == nil || !c.hasServer(req.Server) {
		controlError(w, http.StatusNotFound, fmt.Sprintf("no MCP server named %q (see `beamclaw mcp list`)", req.Server))
		return
	}
	if err := c.tokens.Save(r.Context(), rec); err != nil {
		c.fail(w, err)
		return
	}
	c.mcp.Relogin(req.Server)
	c.log.Info("mcp server logged in", "server", req.Server, "scope", rec.Scope)
	w.WriteHeader(http.StatusNoContent)
}

// mcpLogout forgets a server's login and wakes it (it will need one).
func (c *control) mcpLogout(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPLogoutRequest
	if !decodeControl(w, r, &req) {
		return
	}
	if c.mcp == nil || c.tokens == nil || !c.hasServer(req.Server) {
		controlError(w, http.StatusNotFound, fmt.Sprintf("no MCP server named %q (see `beamclaw mcp list`)", req.Server))
		return
	}
	if err := c.tokens.Delete(r.Context(), req.Server); err != nil {
		c.fail(w, err)
		return
	}
	c.mcp.Relogin(req.Server)
	c.log.Info("mcp server logged out", "server", req.Server)
	w.WriteHeader(http.StatusNoContent)
}

// mcpCall runs `beamclaw mcp call` on the live connection; the server's
// questions are answered with its defaults or declined, as asked.
func (c *control) mcpCall(w http.ResponseWriter, r *http.Request) {
	var req protocol.MCPCallRequest
	if !decodeControl(w, r, &req) {
		return
	}
	if c.mcp == nil || !c.hasServer(req.Server) {
		controlError(w, http.StatusNotFound, fmt.Sprintf("no MCP server named %q (see `beamclaw mcp list`)", req.Server))
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
		controlError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, mcp.ErrNotConnected):
		controlError(w, http.StatusConflict, c.scrub(err.Error()))
	case err != nil:
		controlError(w, http.StatusBadGateway, c.scrub(beamclaw.UserMessage(err)))
	default:
		controlJSON(w, http.StatusOK, out)
	}
}

func (c *control) hasServer(name string) bool {
	for _, s := range c.mcp.Status() {
		if s.Name == name {
			return true
		}
	}
	return false
}

func (c *control) pairList(w http.ResponseWriter, r *http.Request) {
	channel := r.URL.Query().Get("channel")
	if err := checkChannel(channel, true); err != nil {
		controlError(w, http.StatusBadRequest, err.Error())
		return
	}
	out, err := pairList(c.pairing, channel)
	if err != nil {
		c.fail(w, err)
		return
	}
	controlJSON(w, http.StatusOK, out)
}

func (c *control) pairApprove(w http.ResponseWriter, r *http.Request) {
	var req protocol.PairApproveRequest
	if !decodeControl(w, r, &req) {
		return
	}
	peer, err := pairApprove(c.pairing, c.paths, req)
	if err != nil {
		c.fail(w, err)
		return
	}
	c.log.Info("pairing approved", "channel", peer.Channel, "user_id", peer.UserID, "agent", peer.Agent)
	controlJSON(w, http.StatusOK, peer)
}

func (c *control) pairRevoke(w http.ResponseWriter, r *http.Request) {
	var req protocol.PairRevokeRequest
	if !decodeControl(w, r, &req) {
		return
	}
	if err := pairRevoke(c.pairing, req); err != nil {
		c.fail(w, err)
		return
	}
	c.log.Info("pairing revoked", "channel", req.Channel, "user_id", req.UserID)
	w.WriteHeader(http.StatusNoContent)
}

func (c *control) dbBackup(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	n, err := c.db.WriteTo(w)
	if err != nil {
		c.log.Error("database backup failed", "err", err, "bytes", n)
		if n == 0 {
			controlError(w, http.StatusInternalServerError, "backup failed: "+err.Error())
		}
		return
	}
	c.log.Info("database backed up over the control socket", "bytes", n)
}

func (c *control) dbCheck(w http.ResponseWriter, _ *http.Request) {
	out := protocol.DBCheck{Path: c.db.Path(), OK: true}
	if err := c.db.Check(); err != nil {
		out.OK, out.Problem = false, err.Error()
	}
	controlJSON(w, http.StatusOK, out)
}

// sandboxOff answers a sandbox route of a daemon that runs without one.
func (c *control) sandboxOff(w http.ResponseWriter) bool {
	if c.sandbox != nil {
		return false
	}
	controlError(w, http.StatusConflict, "the running daemon has the sandbox off (sandbox.enabled was false when it started): "+
		"restart it with `beamclaw restart`")
	return true
}

// sandboxStatus checks again (so exec comes on at once after a fix) and
// reports.
func (c *control) sandboxStatus(w http.ResponseWriter, r *http.Request) {
	if c.sandboxOff(w) {
		return
	}
	problem := c.gate.Try(r.Context())
	out := SandboxStatusWire(c.sandbox.Status(r.Context()), true, problem)
	out.Daemon, out.ExecOn = true, c.gate.On()
	controlJSON(w, http.StatusOK, out)
}

func (c *control) sandboxList(w http.ResponseWriter, r *http.Request) {
	if c.sandboxOff(w) {
		return
	}
	list, err := c.sandbox.List(r.Context())
	if err != nil {
		controlError(w, http.StatusServiceUnavailable, beamclaw.UserMessage(err))
		return
	}
	controlJSON(w, http.StatusOK, protocol.SandboxContainers{Daemon: true, Containers: SandboxContainersWire(list)})
}

func (c *control) sandboxKill(w http.ResponseWriter, r *http.Request) {
	var req protocol.SandboxKillRequest
	if !decodeControl(w, r, &req) || c.sandboxOff(w) {
		return
	}
	if err := c.sandbox.Kill(r.Context(), req.Container); err != nil {
		status := http.StatusServiceUnavailable
		switch beamclaw.KindOf(err) {
		case beamclaw.KindInvalid:
			status = http.StatusBadRequest
		case beamclaw.KindNotFound:
			status = http.StatusNotFound
		}
		controlError(w, status, beamclaw.UserMessage(err))
		return
	}
	c.log.Info("sandbox container killed", "container", req.Container)
	w.WriteHeader(http.StatusNoContent)
}

// fail answers err: its own words for the owner's mistakes, a logged
// internal error otherwise.
func (c *control) fail(w http.ResponseWriter, err error) {
	status := pairStatus(err)
	switch beamclaw.KindOf(err) {
	case beamclaw.KindInvalid:
		status = http.StatusBadRequest
	case beamclaw.KindNotFound:
		status = http.StatusNotFound
	}
	var ue *userError
	if status == http.StatusInternalServerError && !errors.As(err, &ue) {
		c.log.Error("control request failed", "err", err)
	}
	controlError(w, status, err.Error())
}

func decodeControl(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxControlBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		controlError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return false
	}
	return true
}

func controlJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func controlError(w http.ResponseWriter, status int, msg string) {
	code := http.StatusText(status)
	controlJSON(w, status, protocol.Error{Error: protocol.ErrorDetail{Message: msg, Type: "control_error", Code: &code}})
}
