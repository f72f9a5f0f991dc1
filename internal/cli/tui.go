package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel/tui"
	"github.com/beamclaw/beamclaw-go/pkg/client"
)

func (a *app) newTUICmd() *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:     "tui",
		Example: "  beamclaw tui\n  beamclaw tui --agent coder\n  BEAMCLAW_USER=me beamclaw tui   # the same sessions as your Telegram and API chats",
		Short:   "Talk to an agent in the terminal (starts the runtime in-process when no daemon runs)",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runTUI(cmd.Context(), agent)
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent to talk to (default: core.default_agent)")
	_ = cmd.RegisterFlagCompletionFunc("agent", a.completeAgents)
	return cmd
}

// runTUI connects to the running daemon, or starts one in this process for
// the length of the session when none runs.
func (a *app) runTUI(ctx context.Context, agent string) error {
	c, done, err := a.reachRuntime(ctx)
	if err != nil {
		return err
	}
	defer done()
	// The user id is local:<BEAMCLAW_USER or $USER>; a daemon that has
	// BEAMCLAW_USER itself uses that for every channel.
	return tui.Run(ctx, tui.Options{Client: c, Agent: agent, User: localUser(), In: a.stdin, Out: a.stdout})
}

// reachRuntime returns a client of the running daemon, or of the runtime
// it starts in this process when none runs; done stops that runtime and
// closes the client.
func (a *app) reachRuntime(ctx context.Context) (c *client.Client, done func(), err error) {
	loc, err := a.backend().Locate()
	if err != nil {
		return nil, nil, err
	}
	c = client.NewUnix(loc.Socket)
	if _, err := c.Status(ctx); err == nil {
		return c, c.Close, nil
	}
	stop, err := a.inProcess(ctx, loc)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, func() { stop(); c.Close() }, nil
}

// inProcess runs the daemon's runtime in this process, logging to the log
// file, until the returned stop is called.
func (a *app) inProcess(ctx context.Context, loc beamclaw.Location) (stop func(), err error) {
	if err := os.MkdirAll(dirOf(loc.LogFile), 0o700); err != nil {
		return nil, fmt.Errorf("create log directory: %w", err)
	}
	logf, err := os.OpenFile(loc.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log file: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.backend().RunForeground(ctx, logf, func(beamclaw.Ready) { close(ready) })
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		_ = logf.Close()
		if err == nil {
			err = errors.New("stopped before it was ready")
		}
		return nil, fmt.Errorf("start the runtime in-process: %w", err)
	case <-time.After(startTimeout):
		cancel()
		<-done
		_ = logf.Close()
		return nil, fmt.Errorf("start the runtime in-process: not ready after %s", startTimeout)
	}
	return func() {
		cancel()
		<-done
		_ = logf.Close()
	}, nil
}
