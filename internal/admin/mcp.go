package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// stateNotRunning is the state of a configured server when no daemon runs.
const stateNotRunning = "not running"

// MCPList reports the MCP servers: live from the running daemon, or from
// the config file (state "not running" or "disabled") when none runs.
func (a *Admin) MCPList(ctx context.Context) (protocol.MCPList, error) {
	paths, err := a.paths()
	if err != nil {
		return protocol.MCPList{}, err
	}
	var list protocol.MCPList
	if ok, err := controlDo(ctx, paths.Socket, http.MethodGet, protocol.ControlMCP, nil, &list); ok || err != nil {
		return list, err
	}
	cfg, err := a.load()
	if err != nil {
		return protocol.MCPList{}, err
	}
	list = protocol.MCPList{Servers: make([]protocol.MCPServer, 0, len(cfg.MCP.Servers))}
	for _, s := range cfg.MCP.Servers {
		state := stateNotRunning
		if !s.Enabled {
			state = string(mcp.StateDisabled)
		}
		list.Servers = append(list.Servers, protocol.MCPServer{Name: s.Name, Transport: s.Transport, State: state})
	}
	return list, nil
}

// MCPTools lists the tools of the running daemon's ready MCP servers (of
// one server when server is not empty). It needs a daemon.
func (a *Admin) MCPTools(ctx context.Context, server string) ([]protocol.MCPTool, error) {
	paths, err := a.paths()
	if err != nil {
		return nil, err
	}
	path := protocol.ControlMCPTools
	if server != "" {
		path += "?server=" + url.QueryEscape(server)
	}
	var out protocol.MCPTools
	ok, err := controlDo(ctx, paths.Socket, http.MethodGet, path, nil, &out)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no beamclaw daemon is running (socket %s); `beamclaw mcp test NAME` lists a server's tools without one", paths.Socket)
	}
	return out.Tools, nil
}

// MCPTest connects to the configured server name without a daemon,
// performs the handshake, lists its tools and disconnects.
func (a *Admin) MCPTest(ctx context.Context, name string) ([]protocol.MCPTool, error) {
	infos, err := a.MCPTestInfos(ctx, name)
	if err != nil {
		return nil, err
	}
	return control.MCPToolsWire(infos), nil
}

// MCPTestInfos is MCPTest with the tools' definition hashes.
func (a *Admin) MCPTestInfos(ctx context.Context, name string) ([]mcp.ToolInfo, error) {
	cfg, err := a.load()
	if err != nil {
		return nil, err
	}
	sc, err := a.mcpServerConfig(cfg, name)
	if err != nil {
		return nil, err
	}
	opts := mcp.Options{ProtocolVersion: cfg.MCP.ProtocolVersion, ClientVersion: a.opts.Build.Version,
		RedirectCheck: MCPRedirectCheck}
	if sc.Transport != mcp.TransportHTTP {
		return mcp.Probe(ctx, sc, opts)
	}
	// An http server may need the stored login; the database is free
	// unless a daemon holds it (whose `mcp tools` then answers instead).
	var infos []mcp.ToolInfo
	err = withTokens(cfg.Paths, func(ts oauth.Store) error {
		opts.Tokens = ts
		var perr error
		infos, perr = mcp.Probe(ctx, sc, opts)
		return perr
	})
	if errors.Is(err, store.ErrInUse) {
		infos, err = mcp.Probe(ctx, sc, opts)
	}
	if errors.Is(err, oauth.ErrLoginRequired) || errors.Is(err, oauth.ErrInsufficientScope) {
		return nil, &control.UserError{Msg: fmt.Sprintf("%v; run `beamclaw mcp login %s`", err, name), Err: err}
	}
	return infos, err
}

// mcpServerConfig resolves the configured server name.
func (a *Admin) mcpServerConfig(cfg config.Loaded, name string) (mcp.ServerConfig, error) {
	for _, s := range cfg.MCP.Servers {
		if s.Name == name {
			return s.Resolve(a.getenv)
		}
	}
	return mcp.ServerConfig{}, &control.UserError{Msg: fmt.Sprintf("no MCP server named %q in mcp.servers (see `beamclaw mcp list`)", name),
		Err: mcp.ErrUnknownTool}
}
