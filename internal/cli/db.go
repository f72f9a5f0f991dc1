package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// DBBackend backs up and checks the database, through the running daemon
// or, without one, on the file.
type DBBackend interface {
	DBBackup(ctx context.Context, file string) (int64, error)
	DBCheck(ctx context.Context) (protocol.DBCheck, error)
}

func (a *app) newDBCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: "Back up and check the database",
		Long: "The database ($BEAMCLAW_HOME/beamclaw.db) holds every session's history, pairings and notes.\n" +
			"`db backup FILE` writes a consistent copy while the daemon runs; `db check` checks every page.\n" +
			"To restore: stop the daemon, copy the backup over beamclaw.db, start it again.",
	}
	backup := &cobra.Command{
		Use:     "backup FILE",
		Short:   "Write a consistent copy of the database to FILE (the daemon may run)",
		Example: "  beamclaw db backup ~/beamclaw-$(date +%F).db",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := a.backend().DBBackup(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "backed up %d bytes to %s (checked)\n", n, args[0])
			return nil
		},
	}
	var asJSON bool
	check := &cobra.Command{
		Use:   "check",
		Short: "Check every page of the database",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := a.backend().DBCheck(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				_ = a.printJSON(res)
			} else if res.OK {
				fmt.Fprintf(a.stdout, "%s: every page checks out\n", res.Path)
			}
			if !res.OK {
				return &exitError{code: 1, err: fmt.Errorf("%s", res.Problem)}
			}
			return nil
		},
	}
	check.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.AddCommand(backup, check)
	return cmd
}
