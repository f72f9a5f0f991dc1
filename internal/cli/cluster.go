package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// ClusterBackend reports the running daemon's cluster.
type ClusterBackend interface {
	ClusterStatus(ctx context.Context) (protocol.ClusterStatus, error)
}

func (a *app) newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "cluster", Short: "The cluster this daemon is a node of (cluster.enabled)", Args: cobra.NoArgs}
	status := &cobra.Command{
		Use:   "status",
		Short: "Nodes, JetStream's meta leader and quorum, streams, sessions owned per node",
		Long: "What the running daemon's node sees of its cluster: the nodes that answer now and those\n" +
			"JetStream knows of, the meta leader, the replicated streams and buckets with their replicas,\n" +
			"and the live sessions each node owns. Exits 1 when the quorum is lost (nothing can be written).",
		Example: "  beamclaw cluster status\n  beamclaw cluster status --json",
		Args:    cobra.NoArgs,
	}
	var asJSON bool
	status.RunE = func(cmd *cobra.Command, _ []string) error {
		st, err := a.backend().ClusterStatus(cmd.Context())
		if err != nil {
			return err
		}
		if asJSON {
			err = a.printJSON(st)
		} else {
			err = a.printClusterStatus(st)
		}
		if err == nil && !st.Quorum {
			err = &exitError{code: 1, err: fmt.Errorf("cluster %s: no quorum", st.Name)}
		}
		return err
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.AddCommand(status)
	return cmd
}

func (a *app) printClusterStatus(st protocol.ClusterStatus) error {
	quorum := "kept"
	if !st.Quorum {
		quorum = "LOST"
	}
	fmt.Fprintf(a.stdout, "cluster %s, seen from node %s: meta leader %s, quorum %s, replicas %d\n",
		st.Name, st.Node, orDash(st.MetaLeader), quorum, st.Replicas)
	t := newTable(a.stdout, "NODE", "STATE", "SESSIONS", "SINGLETONS")
	for _, n := range st.Nodes {
		state := "down"
		if n.Up {
			state = "up"
		}
		if n.Leader {
			state += " (meta leader)"
		}
		t.row(n.Name, state, strconv.Itoa(n.Sessions), orDash(strings.Join(n.Singletons, ", ")))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if len(st.Streams) > 0 {
		t = newTable(a.stdout, "STREAM", "REPLICAS", "CURRENT", "LEADER", "MESSAGES", "BYTES")
		for _, s := range st.Streams {
			t.row(s.Name, strconv.Itoa(s.Replicas), strconv.Itoa(s.Current), orDash(s.Leader),
				strconv.FormatUint(s.Messages, 10), strconv.FormatUint(s.Bytes, 10))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	for _, p := range st.Problems {
		fmt.Fprintln(a.stdout, "problem: "+p)
	}
	return nil
}
