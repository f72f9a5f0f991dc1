package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// UsersBackend lists, shows, exports and forgets the people the daemon
// knows, and links their accounts, through the running daemon.
type UsersBackend interface {
	UsersList(ctx context.Context) (protocol.UserList, error)
	UserShow(ctx context.Context, user string) (protocol.UserDetail, error)
	UserExport(ctx context.Context, user string) (protocol.UserExport, error)
	UserForget(ctx context.Context, user string) (protocol.UserForgotten, error)
	UserLinkCode(ctx context.Context, account string) (protocol.LinkCode, error)
	UserLink(ctx context.Context, account, code string) (protocol.UserDetail, error)
	UserUnlink(ctx context.Context, account string) (protocol.Unlinked, error)
}

func (a *app) newUsersCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "users",
		Short: "The people who talk to your agents: their accounts, sessions and memory",
		Long: "A user is a channel and an account: tg:<id>, api:<user>, ws:<user>, local:<name>, a2a:<caller>,\n" +
			"tg-group:<chat> for a Telegram group. Each has their own sessions and, under memory_scope: user,\n" +
			"their own memory in every agent. Accounts of one person are linked with a code shown on one\n" +
			"account and typed on the other (/link in Telegram and over /ws, beamclaw users link here);\n" +
			"sessions, memory and approvals then follow the person.",
		Example: "  beamclaw users list\n  beamclaw users show tg:123456\n  beamclaw users export tg:123456 > erin.json\n" +
			"  beamclaw users forget tg:123456 --yes\n  beamclaw users link            # shows a code to type as /link CODE elsewhere\n" +
			"  beamclaw users link K7QM29XD   # links this terminal to the account that showed the code\n  beamclaw users unlink tg:123456",
	}
	cmd.AddCommand(a.newUsersListCmd(), a.newUserShowCmd(), a.newUserExportCmd(), a.newUserForgetCmd(),
		a.newUserLinkCmd(), a.newUserUnlinkCmd())
	return cmd
}

func (a *app) newUsersListCmd() *cobra.Command {
	return shows(a, &cobra.Command{Use: "list", Short: "List every user with sessions, memory or linked accounts", Args: cobra.NoArgs},
		"print as JSON",
		func(cmd *cobra.Command, _ []string) (protocol.UserList, error) {
			return a.backend().UsersList(cmd.Context())
		},
		func(list protocol.UserList) error {
			if len(list.Users) == 0 {
				fmt.Fprintln(a.stdout, "no users")
				return nil
			}
			t := newTable(a.stdout, "USER", "LINKED", "SESSIONS", "MEMORY IN", "UPDATED")
			for _, u := range list.Users {
				updated := "-"
				if !u.Updated.IsZero() {
					updated = u.Updated.Local().Format("2006-01-02 15:04")
				}
				t.row(u.ID, orDash(strings.Join(u.Accounts, ",")), fmt.Sprint(u.Sessions), orDash(strings.Join(u.Memory, ",")), updated)
			}
			return t.flush()
		})
}

func (a *app) newUserShowCmd() *cobra.Command {
	return shows(a, &cobra.Command{Use: "show USER", Short: "Show a user's accounts, sessions and own memory", Args: cobra.ExactArgs(1)},
		"print as JSON",
		func(cmd *cobra.Command, args []string) (protocol.UserDetail, error) {
			return a.backend().UserShow(cmd.Context(), args[0])
		},
		func(d protocol.UserDetail) error {
			fmt.Fprintf(a.stdout, "user      %s\n", d.User.ID)
			if len(d.User.Accounts) > 0 {
				fmt.Fprintf(a.stdout, "linked    %s\n", strings.Join(d.User.Accounts, ", "))
			}
			fmt.Fprintf(a.stdout, "sessions  %d\n", len(d.Sessions))
			for _, s := range d.Sessions {
				fmt.Fprintf(a.stdout, "  %s  %s  %d messages  %s\n", shortID(s.ID), s.Agent, s.Messages, oneLine(s.Title, 50))
			}
			for _, m := range d.Memory {
				files := slices.Sorted(maps.Keys(m.Files))
				fmt.Fprintf(a.stdout, "memory in %s: %s, %d daily logs, %d notes\n", m.Agent, orDash(strings.Join(files, ", ")), len(m.DailyLogs), len(m.Notes))
			}
			return nil
		})
}

func (a *app) newUserExportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "export USER",
		Short: "Print everything kept of a user as JSON: sessions with history, own memory, notes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := a.backend().UserExport(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printJSON(out)
		},
	}
}

func (a *app) newUserForgetCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "forget USER",
		Short: "Delete a user's sessions, their own memory in every agent and their links (asks first; --yes to skip)",
		Long:  "Export first if you may need it: beamclaw users export USER > USER.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !yes && !a.confirm("Delete every session of "+args[0]+", their memory in every agent and their links?") {
				return errCancelled
			}
			res, err := a.backend().UserForget(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "forgot %s: %d sessions, memory in %d agents", res.User, res.Sessions, len(res.Memory))
			if len(res.Unlinked) > 0 {
				fmt.Fprintf(a.stdout, ", unlinked %s", strings.Join(res.Unlinked, ", "))
			}
			fmt.Fprintln(a.stdout)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func (a *app) newUserLinkCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "link [CODE]",
		Short: "Link this terminal's user to another account of yours (a code shown on one, typed on the other)",
		Long: "Without CODE: shows a code; type /link CODE on your other account (Telegram, /ws) within\n" +
			"10 minutes. With CODE (shown by /link on your other account): links this terminal's user to\n" +
			"it. The account that showed the code keeps its sessions and memory; the other joins it.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			me := "local:" + localUser() // the terminal's account, as its hello names it
			if len(args) == 0 {
				c, err := a.backend().UserLinkCode(cmd.Context(), me)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "link code for %s: %s (valid until %s)\nsend /link %s from your other account\n",
					me, c.Code, c.Expires.Local().Format("15:04"), c.Code)
				return nil
			}
			d, err := a.backend().UserLink(cmd.Context(), me, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s is now linked: one person %s (%s)\n", me, d.User.ID, strings.Join(append([]string{d.User.ID}, d.User.Accounts...), ", "))
			return nil
		},
	}
}

func (a *app) newUserUnlinkCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "unlink ACCOUNT",
		Short: "Separate an account from the person it is linked to (each keeps its own sessions again)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := a.backend().UserUnlink(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "unlinked %s\n", strings.Join(res.Accounts, ", "))
			return nil
		},
	}
}
