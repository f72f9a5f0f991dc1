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

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Backend is what the commands need, bound to one config file (the
// --config flag, or $BEAMCLAW_HOME/config.yaml): internal/admin.
type Backend interface {
	Version() (version, commit, goVersion string)
	Locate() (beamclaw.Location, error)
	RunForeground(ctx context.Context, logOut io.Writer, ready func(beamclaw.Ready)) error
	ConfigCheck(ctx context.Context) (summary string, err error)
	ConfigShow() ([]byte, error)
	ConfigEdit(key string, value *string) (file string, err error)
	Doctor(ctx context.Context) []protocol.Check
	AgentBackend
	SkillsBackend
	MCPBackend
	PairingBackend
	DBBackend
	A2ABackend
	SessionsBackend
	UsersBackend
	UsageBackend
	ClusterBackend
	SandboxBackend
	SchedulerBackend
	ConsoleBackend
}

// Open returns the Backend of a config file ("" = the default file).
type Open func(configFile string) Backend

// app carries what every command shares.
type app struct {
	open       Open
	bound      Backend // open(configFlag), once the flags are parsed
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
func Main(args []string, open Open, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{open: open, stdin: stdin, stdout: stdout, stderr: stderr}
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
		Example: "  beamclaw start                      # the daemon, in the background\n" +
			"  beamclaw tui                        # talk to the default agent in the terminal\n" +
			"  beamclaw chat -m \"summarise my notes\"  # one message, the answer on stdout\n" +
			"  beamclaw logs -f --level warn       # follow the daemon's log\n" +
			"  beamclaw doctor                     # what is wrong, and how to fix it",
	}
	v, commit, gover := a.version()
	root.Version = fmt.Sprintf("%s (commit %s, %s)", v, commit, gover)
	root.SetVersionTemplate("beamclaw {{.Version}}\n")
	root.PersistentFlags().StringVar(&a.configFlag, "config", "", "config file (default $BEAMCLAW_HOME/config.yaml)")
	root.AddCommand(
		a.newStartCmd(), a.newStopCmd(), a.newRestartCmd(), a.newStatusCmd(),
		a.newVersionCmd(), a.newDoctorCmd(), a.newConfigCmd(), a.newTUICmd(), a.newChatCmd(), a.newLogsCmd(),
		a.newAgentCmd(), a.newSkillsCmd(), a.newMCPCmd(), a.newPairCmd(), a.newDBCmd(), a.newA2ACmd(), a.newSessionsCmd(), a.newUsersCmd(), a.newUsageCmd(), a.newClusterCmd(), a.newSandboxCmd(),
		a.newSchedulerCmd(), a.newConsoleCmd(),
	)
	return root
}

// backend is the Backend of the --config file, opened on first use (after
// cobra parsed the flags).
func (a *app) backend() Backend {
	if a.bound == nil {
		a.bound = a.open(a.configFlag)
	}
	return a.bound
}

// version describes the binary; it needs no config, so it does not bind
// the backend before the flags are parsed.
func (a *app) version() (version, commit, goVersion string) {
	return a.open(a.configFlag).Version()
}
