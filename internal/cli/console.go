package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ConsoleBackend signs a browser in to the web console.
type ConsoleBackend interface {
	ConsoleCode(ctx context.Context) (code protocol.ConsoleCode, loginURL string, err error)
}

func (a *app) newConsoleCmd() *cobra.Command {
	var noOpen bool
	cmd := &cobra.Command{
		Use:   "console",
		Short: "Sign a browser in to the web console with a one-time code",
		Long: "Prints the web console's login page and a one-time code (valid 10 minutes, once) and opens\n" +
			"the page in your browser. Type the code there: it is never put in the address. The gateway\n" +
			"token signs in too; with no token configured, a code is the only way in.",
		Example: "  beamclaw console\n  beamclaw console --no-open",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code, url, err := a.backend().ConsoleCode(cmd.Context())
			if err != nil {
				return err
			}
			until := code.ExpiresAt
			if t, err := time.Parse(time.RFC3339, code.ExpiresAt); err == nil {
				until = t.Local().Format("15:04")
			}
			fmt.Fprintf(a.stdout, "Open %s\nand type this one-time code: %s-%s (valid until %s, once)\n",
				url, code.Code[:4], code.Code[4:], until)
			if !noOpen {
				openBrowser(url)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&noOpen, "no-open", false, "only print the address and the code")
	return cmd
}
