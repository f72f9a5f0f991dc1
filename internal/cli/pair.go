package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// PairingBackend lists, approves and revokes channel pairings, through the
// running daemon or, without one, on the store directly.
type PairingBackend interface {
	PairList(ctx context.Context, channel string) (protocol.PairingList, error)
	PairApprove(ctx context.Context, req protocol.PairApproveRequest) (protocol.Peer, error)
	PairRevoke(ctx context.Context, req protocol.PairRevokeRequest) error
}

func (a *app) newPairCmd() *cobra.Command {
	var agent string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pair [CHANNEL CODE]",
		Short: "Approve a pairing code (pair telegram CODE), or list pairings",
		Long: "A stranger who messages the bot gets a pairing code and nothing else. Approve them with\n" +
			"`beamclaw pair telegram CODE [--agent NAME]`; with no arguments, pair lists the pending\n" +
			"requests and the approved peers (as `pair list` does).",
		Example: "  beamclaw pair telegram K7QM-29XD --agent work\n  beamclaw pair list\n  beamclaw pair revoke telegram 123456789",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 && len(args) != 2 {
				return fmt.Errorf("want CHANNEL CODE (for example: beamclaw pair telegram K7QM29XD), or no arguments to list")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return a.pairList(cmd.Context(), "", asJSON)
			}
			peer, err := a.backend().PairApprove(cmd.Context(),
				protocol.PairApproveRequest{Channel: args[0], Code: args[1], Agent: agent})
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(peer)
			}
			target := "the channel's default agent"
			if peer.Agent != "" {
				target = "agent " + peer.Agent
			}
			fmt.Fprintf(a.stdout, "approved %s user %s%s; they talk to %s\n", peer.Channel, peer.UserID, named(peer.Name), target)
			return nil
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "bind the approved user to this agent (default: the channel's agent)")
	_ = cmd.RegisterFlagCompletionFunc("agent", a.completeAgents)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.AddCommand(a.newPairListCmd(), a.newPairRevokeCmd())
	return cmd
}

func named(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

func (a *app) newPairListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [CHANNEL]",
		Short: "List pending pairing requests and approved peers",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			channel := ""
			if len(args) == 1 {
				channel = args[0]
			}
			return a.pairList(cmd.Context(), channel, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *app) pairList(ctx context.Context, channel string, asJSON bool) error {
	list, err := a.backend().PairList(ctx, channel)
	if err != nil {
		return err
	}
	if asJSON {
		return a.printJSON(list)
	}
	if len(list.Pending) == 0 {
		fmt.Fprintln(a.stdout, "no pending pairing requests")
	} else {
		fmt.Fprintln(a.stdout, "PENDING (approve with: beamclaw pair CHANNEL CODE; the person has the code)")
		t := newTable(a.stdout, "CHANNEL", "USER ID", "NAME", "REQUESTED", "EXPIRES")
		for _, p := range list.Pending {
			t.row(p.Channel, p.UserID, orDash(p.Name), localTime(p.CreatedAt), localTime(p.ExpiresAt))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(a.stdout)
	if len(list.Approved) == 0 {
		fmt.Fprintln(a.stdout, "no approved peers")
		return nil
	}
	fmt.Fprintln(a.stdout, "APPROVED")
	t := newTable(a.stdout, "CHANNEL", "USER ID", "NAME", "AGENT", "APPROVED")
	for _, p := range list.Approved {
		agent := p.Agent
		if agent == "" {
			agent = "(default)"
		}
		t.row(p.Channel, p.UserID, orDash(p.Name), agent, localTime(p.ApprovedAt))
	}
	return t.flush()
}

func (a *app) newPairRevokeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "revoke CHANNEL USER_ID",
		Short: "Remove an approved peer (or a pending request) of a channel",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := a.backend().PairRevoke(cmd.Context(),
				protocol.PairRevokeRequest{Channel: args[0], UserID: args[1]})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "revoked %s user %s\n", args[0], args[1])
			return nil
		},
	}
}
