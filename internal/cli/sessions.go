package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// SessionsBackend lists, shows and deletes stored sessions, through the
// running daemon or, without one, on the store directly.
type SessionsBackend interface {
	SessionsList(ctx context.Context, f protocol.SessionQuery) (protocol.SessionList, error)
	SessionShow(ctx context.Context, id string) (protocol.SessionDetail, error)
	SessionExport(ctx context.Context, id string) (protocol.SessionDetail, error) // a show and the outputs kept whole
	SessionDelete(ctx context.Context, id string) (string, error)
	SessionReset(ctx context.Context, id string) (string, error)
}

func (a *app) newSessionsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, export, reset and delete stored conversations",
		Long: "Every conversation is stored: a user's session with an agent, and each chat UI conversation\n" +
			"on the OpenAI API as a thread of its own. Sessions idle past core.session_ttl_seconds are\n" +
			"archived, not deleted: list them with --archived; their next message (or /resume ID in\n" +
			"the terminal UI) makes them active again. IDs may be shortened to a unique prefix.",
		Example: "  beamclaw sessions list --agent default\n" +
			"  beamclaw sessions list --archived --search invoice\n" +
			"  beamclaw sessions show 3fa9c2\n" +
			"  beamclaw sessions export 3fa9c2 --format md -o chat.md\n" +
			"  beamclaw sessions reset 3fa9c2\n" +
			"  beamclaw sessions delete 3fa9c2",
	}
	cmd.AddCommand(a.newSessionsListCmd(), a.newSessionsShowCmd(), a.newSessionsExportCmd(), a.newSessionsResetCmd(),
		a.newSessionsDeleteCmd())
	return cmd
}

func (a *app) newSessionsListCmd() *cobra.Command {
	var f protocol.SessionQuery
	cmd := shows(a, &cobra.Command{
		Use:   "list",
		Short: "List sessions, most recently active first",
		Args:  cobra.NoArgs,
	}, "print as JSON",
		func(cmd *cobra.Command, _ []string) (protocol.SessionList, error) {
			return a.backend().SessionsList(cmd.Context(), f)
		},
		func(list protocol.SessionList) error {
			if len(list.Sessions) == 0 {
				fmt.Fprintln(a.stdout, "no sessions")
				return nil
			}
			t := newTable(a.stdout, "ID", "AGENT", "USER", "MESSAGES", "UPDATED", "STATE", "TITLE")
			for _, s := range list.Sessions {
				t.row(shortID(s.ID), s.Agent, s.User, fmt.Sprint(s.Messages), s.Updated.Local().Format("2006-01-02 15:04"),
					sessionState(s), oneLine(s.Title, 50))
			}
			return t.flush()
		})
	cmd.Flags().StringVar(&f.Agent, "agent", "", "only this agent's sessions")
	cmd.Flags().StringVar(&f.User, "user", "", "only this user's sessions (e.g. api:alice, tg:123)")
	cmd.Flags().BoolVar(&f.Archived, "archived", false, "archived sessions too")
	cmd.Flags().StringVar(&f.Search, "search", "", "only sessions whose history holds this text (case-insensitive)")
	_ = cmd.RegisterFlagCompletionFunc("agent", a.completeAgents)
	return cmd
}

func sessionState(s protocol.SessionInfo) string {
	switch {
	case !s.Archived.IsZero():
		return "archived"
	case s.Live:
		return "live"
	}
	return "stored"
}

// shortID is a session id without its prefix, cut to 12 characters
// (enough to be unique; every command takes a prefix).
func shortID(id string) string {
	id = strings.TrimPrefix(id, "session-")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func (a *app) newSessionsShowCmd() *cobra.Command {
	return shows(a, &cobra.Command{
		Use:               "show ID",
		Short:             "Show a session and its conversation",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeSessions,
	}, "print as JSON",
		func(cmd *cobra.Command, args []string) (protocol.SessionDetail, error) {
			return a.backend().SessionShow(cmd.Context(), args[0])
		},
		func(d protocol.SessionDetail) error { return writeMarkdown(a.stdout, d) })
}

func (a *app) newSessionsExportCmd() *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:               "export ID",
		Short:             "Export a session as JSON or Markdown",
		Example:           "  beamclaw sessions export 3fa9c2 --format md -o chat.md",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeSessions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "json" && format != "md" {
				return fmt.Errorf("--format must be json or md, not %q", format)
			}
			d, err := a.backend().SessionExport(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			w := a.stdout
			if out != "" && out != "-" {
				f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			if format == "json" {
				err = writeJSON(w, d)
			} else {
				err = writeMarkdown(w, d)
			}
			if err == nil && out != "" && out != "-" {
				fmt.Fprintf(a.stderr, "exported %d messages to %s\n", len(d.Messages), out)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "json or md")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file (mode 0600) instead of stdout")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"json", "md"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (a *app) newSessionsDeleteCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:               "delete ID",
		Short:             "Delete a session and its history for good",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeSessions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !yes && !a.confirm("Delete session "+args[0]+" and its whole history?") {
				return errCancelled
			}
			id, err := a.backend().SessionDelete(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "deleted %s\n", id)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func (a *app) newSessionsResetCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:               "reset ID",
		Short:             "Empty a session's history, as /reset in the chat does (the daemon must run)",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeSessions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !yes && !a.confirm("Empty the history of session "+args[0]+"?") {
				return errCancelled
			}
			id, err := a.backend().SessionReset(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "reset %s: its history is empty\n", id)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

// writeMarkdown renders a session as a Markdown transcript.
func writeMarkdown(w io.Writer, d protocol.SessionDetail) error {
	_, err := io.WriteString(w, d.Markdown())
	return err
}
