package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// SandboxBackend reports on, lists, removes and builds the code sandbox:
// through the running daemon when sandbox.enabled and one runs, on the
// Docker engine directly otherwise. Build never needs a daemon.
type SandboxBackend interface {
	SandboxStatus(ctx context.Context) (protocol.SandboxStatus, error)
	SandboxList(ctx context.Context) (protocol.SandboxContainers, error)
	SandboxKill(ctx context.Context, container string) error
	SandboxBuild(ctx context.Context, force bool, mirror string, progress io.Writer) (protocol.SandboxBuild, error)
}

func (a *app) newSandboxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Build the code sandbox's image, check it, list or remove its containers",
		Long: "The code sandbox runs the scripts agents write (the exec tool) in hardened Docker containers\n" +
			"(sandbox.* in the config, docs/sandbox.md). `sandbox build` builds its image on the local engine.",
	}
	cmd.AddCommand(a.newSandboxStatusCmd(), a.newSandboxListCmd(), a.newSandboxKillCmd(), a.newSandboxBuildCmd())
	return cmd
}

func (a *app) newSandboxStatusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether exec can run: the engine, the image, the runtime, the containers (exit 1 when enabled but it cannot)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := a.backend().SandboxStatus(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				if err := a.printJSON(st); err != nil {
					return err
				}
			} else {
				a.printSandboxStatus(st)
			}
			if st.Enabled && st.Problem != "" {
				return &exitError{code: 1, err: fmt.Errorf("sandboxed code execution cannot run: %s", st.Problem)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

func (a *app) printSandboxStatus(st protocol.SandboxStatus) {
	t := newTable(a.stdout)
	state := "off (sandbox.enabled: false)"
	switch {
	case st.Enabled && st.Daemon && st.ExecOn:
		state = "on: the running daemon offers exec"
	case st.Enabled && st.Problem != "":
		state = "enabled, but exec cannot run"
	case st.Enabled:
		state = "enabled (no daemon running)"
	}
	t.row("sandbox:", state)
	engine := "not reachable at " + st.Engine
	if st.EngineOK {
		engine = fmt.Sprintf("Docker %s at %s (API %s)", st.EngineVersion, st.Engine, st.APIVersion)
	}
	t.row("engine:", engine)
	image := st.Image + ": not built"
	switch {
	case st.ImageID != "" && st.ImageCurrent:
		image = st.Image + " (" + st.ImageID + ", current)"
	case st.ImageID != "":
		image = st.Image + " (" + st.ImageID + ", built by another version: rebuild)"
	}
	if st.EngineOK {
		t.row("image:", image)
		rt := st.Runtime
		if len(st.Runtimes) > 0 {
			rt += " (the engine has " + strings.Join(st.Runtimes, ", ") + ")"
		}
		t.row("runtime:", rt)
		t.row("containers:", strconv.Itoa(st.Containers)+" of installation "+st.InstallID)
	}
	if st.Problem != "" {
		t.row("problem:", st.Problem)
		t.row("fix:", st.Fix)
	}
	_ = t.flush()
}

func (a *app) newSandboxListCmd() *cobra.Command {
	return shows(a, &cobra.Command{
		Use:   "list",
		Short: "List this installation's sandbox containers",
		Args:  cobra.NoArgs,
	}, "print the containers as JSON",
		func(cmd *cobra.Command, _ []string) (protocol.SandboxContainers, error) {
			return a.backend().SandboxList(cmd.Context())
		},
		func(list protocol.SandboxContainers) error {
			if len(list.Containers) == 0 {
				fmt.Fprintln(a.stdout, "no sandbox containers")
				return nil
			}
			t := newTable(a.stdout, "ID", "NAME", "SCOPE", "SESSION", "AGENT", "STATE", "STATUS", "RUNS")
			for _, c := range list.Containers {
				t.row(c.ID, c.Name, c.Scope, orDash(c.Session), orDash(c.Agent), c.State, c.Status, strconv.Itoa(c.InFlight))
			}
			return t.flush()
		})
}

func (a *app) newSandboxKillCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "kill ID",
		Short:   "Remove a sandbox container now (by name, or a prefix of its name or id); a run in it fails",
		Example: "  beamclaw sandbox list\n  beamclaw sandbox kill beamclaw-sbx-3f2a",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.backend().SandboxKill(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "removed %s\n", args[0])
			return nil
		},
	}
}

func (a *app) newSandboxBuildCmd() *cobra.Command {
	var (
		force  bool
		mirror string
	)
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build the sandbox image (sandbox.docker_image) on the local engine; quick when nothing changed",
		Long: "Builds a minimal Debian with python3 (mmdebstrap, run once and kept) and the sandbox's runner and\n" +
			"tool-bridge clients on top, on the local Docker engine; no registry is used. Needs mmdebstrap\n" +
			"(apt-get install mmdebstrap) the first time. A running daemon offers exec as soon as it is done.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := a.backend().SandboxBuild(cmd.Context(), force, mirror, a.stdout)
			if err != nil {
				return err
			}
			if d := res.Daemon; d != nil {
				if d.ExecOn {
					fmt.Fprintln(a.stdout, "the running daemon offers exec")
				} else {
					fmt.Fprintf(a.stdout, "the running daemon still cannot run exec: %s\nfix: %s\n", d.Problem, d.Fix)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "rebuild the base and the image even when up to date")
	cmd.Flags().StringVar(&mirror, "mirror", "", "Debian mirror for mmdebstrap (default deb.debian.org)")
	return cmd
}
