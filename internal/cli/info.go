package cli

import (
	"fmt"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func (a *app) newStatusCmd() *cobra.Command {
	return shows(a, &cobra.Command{
		Use:     "status",
		Example: "  beamclaw status\n  beamclaw status --json | jq .subsystems",
		Short:   "Show the running daemon's status (exits 1 when none runs)",
		Args:    cobra.NoArgs,
	}, "print the status as JSON",
		func(cmd *cobra.Command, _ []string) (protocol.Status, error) {
			loc, err := a.backend().Locate()
			if err != nil {
				return protocol.Status{}, err
			}
			c := client.NewUnix(loc.Socket)
			defer c.Close()
			st, err := c.Status(cmd.Context())
			if err != nil {
				return st, &exitError{code: 1, err: fmt.Errorf("no beamclaw daemon is running (socket %s)", loc.Socket)}
			}
			return st, nil
		},
		a.printStatus)
}

func (a *app) printStatus(st protocol.Status) error {
	fmt.Fprintf(a.stdout, "beamclaw %s running (pid %d)\n", st.Version, st.PID)
	fmt.Fprintf(a.stdout, "  uptime    %s\n", (time.Duration(st.UptimeSeconds) * time.Second).String())
	fmt.Fprintf(a.stdout, "  http      http://%s\n  socket    %s\n  home      %s\n", st.HTTPAddr, st.Socket, st.Home)
	names := make([]string, 0, len(st.Subsystems))
	for n := range st.Subsystems {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := st.Subsystems[n]
		state := "ready"
		if !s.Ready {
			state = "NOT READY"
		}
		fmt.Fprintf(a.stdout, "  %-9s %s  %s\n", n, state, s.Detail)
	}
	return nil
}

func (a *app) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Args:  cobra.NoArgs,
		Run: func(*cobra.Command, []string) {
			v, commit, gover := a.version()
			fmt.Fprintf(a.stdout, "beamclaw %s (commit %s, %s)\n", v, commit, gover)
		},
	}
}

func (a *app) newDoctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "doctor",
		Example: "  beamclaw doctor\n  beamclaw --config ./staging.yaml doctor",
		Short:   "Check the config, home, store, provider keys, the code sandbox (Docker) and the port",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			failed := 0
			for _, c := range a.backend().Doctor(cmd.Context()) {
				fmt.Fprintf(a.stdout, "%-4s %-16s %s\n", c.Level, c.Name, c.Detail)
				if c.Level != "ok" && c.Fix != "" {
					fmt.Fprintf(a.stdout, "     %-16s fix: %s\n", "", c.Fix)
				}
				if c.Level == "fail" {
					failed++
				}
			}
			if failed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d check(s) failed", failed)}
			}
			return nil
		},
	}
}

func (a *app) newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Check, show or change the configuration"}
	cmd.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Validate the config file (every problem, with line numbers)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			summary, err := a.backend().ConfigCheck(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, summary)
			return nil
		},
	}, &cobra.Command{
		Use:   "show",
		Short: "Print the effective config; secrets appear only as {env: VAR} (set/unset)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			out, err := a.backend().ConfigShow()
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(out)
			return err
		},
	}, a.configEditCmd("set KEY VALUE", "Set a key of the config file (VALUE is YAML: 42, true, \"[a, b]\", \"{env: VAR}\")", 2),
		a.configEditCmd("unset KEY", "Remove a key from the config file (its default applies)", 1))
	return cmd
}

// configEditCmd is config set (args 2) or config unset (args 1): the file
// must stay valid; the daemon applies it when it starts again.
func (a *app) configEditCmd(use, short string, args int) *cobra.Command {
	return &cobra.Command{
		Use:     use,
		Short:   short,
		Example: "  beamclaw config set gateway.http.addr 127.0.0.1:18900\n  beamclaw config set gateway.auth.token '{env: BEAMCLAW_GATEWAY_TOKEN}'\n  beamclaw config unset gateway.http.addr",
		Args:    cobra.ExactArgs(args),
		RunE: func(_ *cobra.Command, in []string) error {
			var value *string
			verb := "unset"
			if args == 2 {
				value, verb = &in[1], "set"
			}
			file, err := a.backend().ConfigEdit(in[0], value)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s %s in %s (the old file is %s.bak); a running daemon applies it after beamclaw restart\n", in[0], verb, file, file)
			return nil
		},
	}
}
