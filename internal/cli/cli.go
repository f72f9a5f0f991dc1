// Package cli holds beamclaw's cobra commands. They are thin: they talk to
// a running daemon through pkg/client over the control socket, and reach
// the daemon package only through the Backend that main hands them (cli
// imports neither internal/daemon nor internal/config).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Ready describes a daemon that started serving.
type Ready struct {
	PID      int
	HTTPAddr string
	Socket   string
}

// Location is where a daemon's files are.
type Location struct {
	Home, Socket, LogFile, PIDFile string
}

// Backend is what the commands need from the composition root.
type Backend interface {
	Version() (version, commit, goVersion string)
	Locate(configFlag string) (Location, error)
	RunForeground(ctx context.Context, configFlag string, logOut io.Writer, ready func(Ready)) error
	ConfigCheck(configFlag string) (summary string, err error)
	ConfigShow(configFlag string) ([]byte, error)
	Doctor(ctx context.Context, configFlag string) []protocol.Check
	AgentBackend
	SkillsBackend
	MCPBackend
	PairingBackend
}

// app carries what every command shares.
type app struct {
	backend    Backend
	configFlag string
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
}

// exitError carries a specific exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Main runs the CLI and returns the process exit code.
func Main(args []string, backend Backend, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{backend: backend, stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "beamclaw:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

func (a *app) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "beamclaw",
		Short:         "A fault-tolerant, security-first AI agent gateway",
		Long:          "beamclaw runs your AI agents as a long-lived daemon and lets you reach them from a terminal, Telegram, OpenAI-compatible clients and WebSocket.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&a.configFlag, "config", "", "config file (default $BEAMCLAW_HOME/config.yaml)")
	root.AddCommand(
		a.newStartCmd(), a.newStopCmd(), a.newRestartCmd(), a.newStatusCmd(),
		a.newVersionCmd(), a.newDoctorCmd(), a.newConfigCmd(), a.newTUICmd(),
		a.newAgentCmd(), a.newSkillsCmd(), a.newMCPCmd(), a.newPairCmd(),
	)
	return root
}
