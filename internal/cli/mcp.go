package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// MCPBackend reports, tests and imports MCP servers. List and Tools ask
// the running daemon (List falls back to the config file without one);
// Test and Import never need a daemon.
type MCPBackend interface {
	MCPList(ctx context.Context) (protocol.MCPList, error)
	MCPTools(ctx context.Context, server string) ([]protocol.MCPTool, error)
	MCPTest(ctx context.Context, name string) ([]protocol.MCPTool, error)
	MCPImport(file string, write bool) (protocol.MCPImport, error)
	MCPAccept(ctx context.Context, server, tool string) (string, error)
	MCPLogin(ctx context.Context, server string, show func(authURL string)) (protocol.MCPLogin, error)
	MCPLogout(ctx context.Context, server string) error
	// MCPCall runs one tool; elicit is protocol.ElicitAsk (asker answers
	// on the terminal), ElicitDefaults or ElicitDecline; show presents an
	// authorization URL when a login is needed on the way.
	MCPCall(ctx context.Context, server, tool string, args json.RawMessage, elicit string, asker beamclaw.Asker,
		show func(authURL string)) (protocol.MCPCallResult, error)
}

func (a *app) newMCPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "mcp",
		Example: "  beamclaw mcp list\n  beamclaw mcp tools github\n  beamclaw mcp call github search_issues '{\"query\":\"bug\"}'\n  beamclaw mcp login notion",
		Short:   "List, inspect, test, import, log in to or call MCP servers",
	}
	cmd.AddCommand(a.newMCPListCmd(), a.newMCPToolsCmd(), a.newMCPTestCmd(), a.newMCPImportCmd(),
		a.newMCPAcceptCmd(), a.newMCPLoginCmd(), a.newMCPLogoutCmd(), a.newMCPCallCmd())
	return cmd
}

func (a *app) newMCPListCmd() *cobra.Command {
	return shows(a, &cobra.Command{
		Use:   "list",
		Short: "List MCP servers with their state, tool count, restarts and last error",
		Args:  cobra.NoArgs,
	}, "print the servers as JSON",
		func(cmd *cobra.Command, _ []string) (protocol.MCPList, error) {
			return a.backend().MCPList(cmd.Context())
		},
		a.printMCPList)
}

func (a *app) printMCPList(list protocol.MCPList) error {
	if len(list.Servers) == 0 {
		fmt.Fprintln(a.stdout, "no MCP servers configured (mcp.servers); add some with `beamclaw mcp import FILE`")
		return nil
	}
	if !list.Daemon {
		fmt.Fprintln(a.stderr, "no daemon is running: showing the configured servers (`beamclaw mcp test NAME` tries one)")
	}
	// The last error is shown whole: its cause is at its end.
	t := newTable(a.stdout, "NAME", "TRANSPORT", "STATE", "TOOLS", "RESTARTS", "LAST ERROR")
	var login []string
	for _, s := range list.Servers {
		state := s.State
		if len(s.Changed) > 0 {
			state += " (" + strconv.Itoa(len(s.Changed)) + " changed)"
		}
		if s.State == "needs_login" || s.NeedsScope != "" {
			login = append(login, s.Name)
		}
		t.row(s.Name, s.Transport, state, strconv.Itoa(s.Tools), strconv.Itoa(s.Restarts), orDash(strings.Join(strings.Fields(s.LastError), " ")))
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, name := range login {
		fmt.Fprintf(a.stdout, "\n%s needs a login: run `beamclaw mcp login %s`\n", name, name)
	}
	return nil
}

func (a *app) newMCPToolsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "tools [SERVER]",
		ValidArgsFunction: a.completeMCPServers,
		Short:             "List the tools of the running daemon's MCP servers (of one server when named)",
		Args:              cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server := ""
			if len(args) == 1 {
				server = args[0]
			}
			tools, err := a.backend().MCPTools(cmd.Context(), server)
			if err != nil {
				return err
			}
			return a.printTools(tools, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the tools as JSON")
	return cmd
}

func (a *app) printTools(tools []protocol.MCPTool, asJSON bool) error {
	if asJSON {
		if tools == nil {
			tools = []protocol.MCPTool{}
		}
		return a.printJSON(protocol.MCPTools{Tools: tools})
	}
	if len(tools) == 0 {
		fmt.Fprintln(a.stdout, "no tools (no MCP server is ready)")
		return nil
	}
	t := newTable(a.stdout, "TOOL", "SERVER", "FLAGS", "DESCRIPTION")
	changed := 0
	for _, tl := range tools {
		var flags []string
		if tl.Changed {
			flags, changed = append(flags, "CHANGED"), changed+1
		}
		if tl.Trusted {
			flags = append(flags, "trusted")
		}
		t.row(tl.Name, tl.Server, orDash(strings.Join(flags, ",")), oneLine(tl.Description, 70))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if changed > 0 {
		fmt.Fprintf(a.stdout, "\n%d tool definition(s) CHANGED since they were approved: they are disabled; "+
			"review them, then `beamclaw mcp accept SERVER TOOL`\n", changed)
	}
	return nil
}

func (a *app) newMCPTestCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "test NAME",
		ValidArgsFunction: a.completeMCPServers,
		Short:             "Connect to a configured MCP server without the daemon and list its tools",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.stderr, "connecting to %s...\n", args[0])
			tools, err := a.backend().MCPTest(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if !asJSON {
				fmt.Fprintf(a.stdout, "%s: ok, %d tools\n", args[0], len(tools))
			}
			return a.printTools(tools, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the tools as JSON")
	return cmd
}

func (a *app) newMCPImportCmd() *cobra.Command {
	var write bool
	cmd := shows(a, &cobra.Command{
		Use:   "import FILE",
		Short: "Convert a Claude Desktop style mcpServers JSON file into mcp.servers config",
		Long: "import reads {\"mcpServers\": {...}} (Claude Desktop, Cursor, VS Code) and prints the YAML to add\n" +
			"under mcp.servers. Values that look like credentials become {env: VAR} references, never\n" +
			"copied: export the variables named in the notes. --write appends the servers to the config\n" +
			"file (created if missing; the old file is kept as .bak) and refuses names already there.",
		Args: cobra.ExactArgs(1),
	}, "print the result as JSON",
		func(_ *cobra.Command, args []string) (protocol.MCPImport, error) {
			return a.backend().MCPImport(args[0], write)
		},
		func(res protocol.MCPImport) error {
			if res.Written == "" {
				fmt.Fprint(a.stdout, res.YAML)
			} else {
				fmt.Fprintf(a.stdout, "added %d MCP server(s) to %s: %s\n", len(res.Servers), res.Written, strings.Join(res.Servers, ", "))
			}
			for _, n := range res.Notes {
				fmt.Fprintln(a.stderr, "note:", n)
			}
			return nil
		})
	cmd.Flags().BoolVar(&write, "write", false, "append the servers to the config file")
	return cmd
}

func (a *app) newMCPAcceptCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "accept SERVER TOOL",
		ValidArgsFunction: a.completeMCPServers,
		Short:             "Enable a tool whose definition changed since it was approved, pinning the new definition",
		Long: "A tool whose description or schema changed since its first approved run is disabled (a changed\n" +
			"definition can smuggle instructions to the model). Review it with `beamclaw mcp tools SERVER`,\n" +
			"then accept pins the definition the server offers now and enables the tool.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := a.backend().MCPAccept(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "accepted %s: its current definition is pinned and the tool is enabled\n", name)
			return nil
		},
	}
}
