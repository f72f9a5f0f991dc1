package admin

import (
	"context"
	"fmt"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// MCPAccept pins the current definition of a server's tool and enables it
// again after its definition changed (`beamclaw mcp accept SERVER TOOL`).
// With a daemon the live manager pins the definition it has; without one
// the server is probed and the definition it lists now is pinned in the
// database.
func (a *Admin) MCPAccept(ctx context.Context, server, tool string) (string, error) {
	paths, err := a.paths()
	if err != nil {
		return "", err
	}
	var out protocol.MCPAccepted
	req := protocol.MCPAcceptRequest{Server: server, Tool: tool}
	if ok, err := controlDo(ctx, paths.Socket, http.MethodPost, protocol.ControlMCPAccept, req, &out); ok || err != nil {
		return out.Tool, err
	}
	infos, err := a.MCPTestInfos(ctx, server)
	if err != nil {
		return "", err
	}
	for _, t := range infos {
		if t.RemoteName != tool && t.Name != tool {
			continue
		}
		db, err := store.Open(paths.DB, store.Options{PIDFile: paths.PIDFile})
		if err != nil {
			return "", err
		}
		defer db.Close()
		pins, err := store.NewKV(db, mcp.PinBucket)
		if err != nil {
			return "", err
		}
		if err := pins.Put(t.Name, t.Hash); err != nil {
			return "", fmt.Errorf("pin %s: %w", t.Name, err)
		}
		return t.Name, nil
	}
	return "", &control.UserError{Msg: fmt.Sprintf("MCP server %q has no tool %q (see `beamclaw mcp test %s`)", server, tool, server),
		Err: mcp.ErrUnknownTool}
}
