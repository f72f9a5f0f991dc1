package admin

import (
	"context"
	"fmt"
	"net/http"

	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/mcp"
	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// mcpChecks reports MCP servers that need the owner: with a daemon, the
// live state (needs_login, failed); without one, the http servers
// configured with an OAuth client of their own and no stored login.
func (a *Admin) mcpChecks(ctx context.Context, cfg config.Loaded, daemonUp bool) []protocol.Check {
	var out []protocol.Check
	if err := MCPKeyProblem(cfg.Paths.KeyFile); err != nil {
		out = append(out, warn("mcp logins", err.Error()+"; the daemon runs, its MCP servers that need a login do not",
			MCPKeyFix(cfg.Paths.KeyFile)))
	}
	if daemonUp {
		var list protocol.MCPList
		if ok, err := controlDo(ctx, cfg.Paths.Socket, http.MethodGet, protocol.ControlMCP, nil, &list); !ok || err != nil {
			return nil
		}
		for _, s := range list.Servers {
			switch {
			case s.State == string(mcp.StateNeedsLogin) || s.NeedsScope != "":
				out = append(out, warn("mcp "+s.Name, "needs a login: "+s.LastError, "beamclaw mcp login "+s.Name))
			case s.State == string(mcp.StateFailed):
				out = append(out, warn("mcp "+s.Name, "failed: "+s.LastError, "fix the server, then `beamclaw restart`"))
			}
		}
		return out
	}
	mo, _ := cfg.MCP.Options(a.getenv)
	for _, sc := range mo.Servers {
		o := sc.OAuth
		if !sc.Enabled || sc.Transport != mcp.TransportHTTP || o.Grant == oauth.GrantClientCredentials ||
			(o.ClientID == "" && o.ClientMetadataURL == "") {
			continue
		}
		_, ok, err := a.storedLogin(cfg.Paths, sc.Name)
		switch {
		case err != nil:
			out = append(out, warn("mcp "+sc.Name, fmt.Sprintf("cannot read its login: %v", err), "check "+cfg.Paths.KeyFile))
		case !ok:
			out = append(out, warn("mcp "+sc.Name, "not logged in", "beamclaw mcp login "+sc.Name))
		}
	}
	return out
}
