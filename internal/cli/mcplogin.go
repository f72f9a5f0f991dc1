package cli

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func (a *app) newMCPLoginCmd() *cobra.Command {
	var noBrowser bool
	cmd := shows(a, &cobra.Command{
		Use:               "login SERVER",
		ValidArgsFunction: a.completeMCPServers,
		Short:             "Authorize beamclaw for an http MCP server (OAuth): prints the URL to open and waits for the browser",
		Long: "login discovers the server's authorization server, registers beamclaw (or uses oauth.client_id),\n" +
			"prints the authorization URL on a line of its own (and opens a browser when there is one), and waits on\n" +
			"a loopback redirect (http://127.0.0.1:PORT/callback). The tokens are stored encrypted in the database\n" +
			"(key: $BEAMCLAW_HOME/secrets.key); a running daemon takes the login at once, without a restart.",
		Args: cobra.ExactArgs(1),
	}, "print the result as JSON",
		func(cmd *cobra.Command, args []string) (protocol.MCPLogin, error) {
			show := func(authURL string) {
				fmt.Fprintf(a.stdout, "Open this URL in a browser to authorize beamclaw for MCP server %q:\n\n%s\n\n", args[0], authURL)
				fmt.Fprintln(a.stdout, "Waiting for the browser to come back (Ctrl+C to give up)...")
				if !noBrowser {
					openBrowser(authURL)
				}
			}
			return a.backend().MCPLogin(cmd.Context(), args[0], show)
		},
		func(res protocol.MCPLogin) error {
			msg := "logged in to " + res.Server
			if res.Scope != "" {
				msg += " (scope " + res.Scope + ")"
			}
			if res.Daemon {
				msg += "; the running daemon uses it now"
			}
			fmt.Fprintln(a.stdout, msg)
			return nil
		})
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "only print the URL (on a machine without a browser, open it elsewhere)")
	return cmd
}

func (a *app) newMCPLogoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "logout SERVER",
		ValidArgsFunction: a.completeMCPServers,
		Short:             "Forget the stored login (tokens) of an MCP server",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.backend().MCPLogout(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "logged out of %s: its tokens are forgotten\n", args[0])
			return nil
		},
	}
}

// openBrowser starts the desktop's URL opener when there is a desktop; it
// never blocks and its failure only means the user opens the printed URL.
func openBrowser(u string) {
	var cmd *exec.Cmd
	switch {
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", u)
	case os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "":
		cmd = exec.Command("xdg-open", u)
	default:
		return
	}
	if err := cmd.Start(); err == nil {
		go func() { _ = cmd.Wait() }()
	}
}
