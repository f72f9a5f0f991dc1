package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Conn is a live WebSocket session with the daemon; *client.Conn is one.
type Conn interface {
	Ready() protocol.ServerFrame
	Events() <-chan protocol.ServerFrame
	SendFrame(ctx context.Context, f protocol.ClientFrame) error
	Err() error
	Close() error
}

var _ Conn = (*client.Conn)(nil)

// Dialer opens a session with agent (hello sent, ready received).
type Dialer func(ctx context.Context, agent string) (Conn, error)

// Options configure Run.
type Options struct {
	// Client reaches the daemon (control socket or TCP); used when Dial is
	// nil, with hello user User and channel "tui".
	Client *client.Client
	Dial   Dialer
	Agent  string // default "default"
	User   string // the hello's user (the daemon makes it "local:<User>"); default "user"
	In     io.Reader
	Out    io.Writer
	// Style of finished answers: "dark" (default) renders Markdown with
	// colours and attributes; "ascii" or "notty" without them.
	Style string
	// Backoff is the wait before reconnect attempt n (from 1); default
	// 250 ms doubling up to 10 s.
	Backoff func(attempt int) time.Duration
	// Clock times the waits between reconnect attempts; defaults to
	// clock.System.
	Clock clock.Clock
	// ProgramOptions are added to the Bubble Tea program's (tests).
	ProgramOptions []tea.ProgramOption
}

const (
	defaultAgent = "default"
	dialTimeout  = 10 * time.Second
)

func (o Options) withDefaults() (Options, error) {
	if o.Agent == "" {
		o.Agent = defaultAgent
	}
	if o.User == "" {
		o.User = "user"
	}
	if o.Style == "" {
		o.Style = "dark"
	}
	if o.Backoff == nil {
		o.Backoff = DefaultBackoff
	}
	o.Clock = clock.Or(o.Clock)
	if o.Dial == nil {
		if o.Client == nil {
			return o, errors.New("tui: Options needs a Client or a Dial function")
		}
		cl, user := o.Client, o.User
		o.Dial = func(ctx context.Context, agent string) (Conn, error) {
			c, err := cl.Dial(ctx, agent, client.DialOptions{User: user, Channel: string(beamclaw.ChannelTUI)})
			if err != nil {
				return nil, err
			}
			return c, nil
		}
	}
	return o, nil
}

// DefaultBackoff waits 250 ms before the first reconnect attempt and
// doubles up to 10 s.
func DefaultBackoff(attempt int) time.Duration {
	d := 250 * time.Millisecond
	for i := 1; i < attempt && d < 10*time.Second; i++ {
		d *= 2
	}
	return min(d, 10*time.Second)
}

// Run connects to opts.Agent and runs the terminal UI until the user
// quits or ctx ends. A first connection that fails is returned as an
// error (the caller may start the runtime in-process and try again);
// later losses reconnect with backoff and a visible status.
func Run(ctx context.Context, opts Options) error {
	opts, err := opts.withDefaults()
	if err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	conn, err := opts.Dial(dctx, opts.Agent)
	cancel()
	if err != nil {
		return fmt.Errorf("connect to agent %s: %w", opts.Agent, err)
	}
	m := newModel(ctx, opts, conn)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	}
	p := tea.NewProgram(m, append(popts, opts.ProgramOptions...)...)
	_, err = p.Run()
	m.shutdown()
	if err != nil && ctx.Err() != nil {
		return nil // cancelled from outside: a clean stop
	}
	return err
}
