package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// A2ABackend calls A2A agents: a URL, or a peer of a2a.peers by name.
type A2ABackend interface {
	A2ADiscover(ctx context.Context, target, tokenEnv string) (protocol.A2ACard, error)
	A2ASend(ctx context.Context, req protocol.A2ASendRequest, onEvent func(protocol.A2AEvent)) (protocol.A2AReply, error)
}

func (a *app) newA2ACmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "a2a",
		Short: "Discover and call A2A agents (any A2A v1.0 or v0.3 server, or a peer of a2a.peers)",
		Long: "TARGET is a URL whose /.well-known/agent-card.json is the agent's card, or the name of a\n" +
			"peer in a2a.peers (its url and token are used). A bearer token for a URL is read from the\n" +
			"environment variable --token-env names, never from the command line.",
	}
	cmd.AddCommand(a.newA2ADiscoverCmd(), a.newA2ASendCmd())
	return cmd
}

func (a *app) newA2ADiscoverCmd() *cobra.Command {
	var tokenEnv string
	var timeout time.Duration
	cmd := shows(a, &cobra.Command{
		Use:     "discover TARGET",
		Short:   "Fetch and show an agent card",
		Example: "  beamclaw a2a discover http://127.0.0.1:18800\n  beamclaw a2a discover research",
		Args:    cobra.ExactArgs(1),
	}, "print as JSON",
		func(cmd *cobra.Command, args []string) (protocol.A2ACard, error) {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			return a.backend().A2ADiscover(ctx, args[0], tokenEnv)
		},
		func(card protocol.A2ACard) error {
			a.printCard(card)
			return nil
		})
	cmd.Flags().StringVar(&tokenEnv, "token-env", "", "environment variable holding the bearer token")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "give up after this long")
	return cmd
}

func (a *app) printCard(c protocol.A2ACard) {
	fmt.Fprintf(a.stdout, "%s %s\n%s\n", c.Name, c.Version, c.Description)
	fmt.Fprintf(a.stdout, "streaming %v, push notifications %v, extended card %v\n", c.Streaming, c.PushNotifications, c.ExtendedCard)
	if len(c.Security) > 0 {
		fmt.Fprintf(a.stdout, "security: %s\n", strings.Join(c.Security, "; "))
	}
	t := newTable(a.stdout, "BINDING", "VERSION", "URL")
	for _, i := range c.Interfaces {
		t.row(i.Binding, i.ProtocolVersion, i.URL)
	}
	_ = t.flush()
	if len(c.Skills) > 0 {
		t = newTable(a.stdout, "SKILL", "DESCRIPTION")
		for _, s := range c.Skills {
			t.row(s.ID, orDash(s.Description))
		}
		_ = t.flush()
	}
}

func (a *app) newA2ASendCmd() *cobra.Command {
	var req protocol.A2ASendRequest
	var asJSON bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "send TARGET MESSAGE",
		Short: "Send a message to an agent and print its answer",
		Example: "  beamclaw a2a send research 'What changed in Go 1.26?'\n" +
			"  BEAMCLAW_A2A_TOKEN=... beamclaw a2a send http://127.0.0.1:18800 hello --token-env BEAMCLAW_A2A_TOKEN --stream\n" +
			"  beamclaw a2a send research yes --task TASK_ID     # answer an agent that asked for input",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req.Target, req.Message = args[0], args[1]
			var onEvent func(protocol.A2AEvent)
			if req.Stream && !asJSON {
				onEvent = (&eventPrinter{a: a}).print
			}
			reply, err := a.backend().A2ASend(ctx, req, onEvent)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(reply)
			}
			if !req.Stream {
				fmt.Fprintln(a.stdout, reply.Text)
			}
			fmt.Fprintf(a.stdout, "(%s: task %s, context %s)\n", reply.State, reply.TaskID, reply.ContextID)
			switch reply.State {
			case "completed", "input-required", "auth-required":
				return nil
			}
			return &exitError{code: 1, err: fmt.Errorf("the task ended %s", reply.State)}
		},
	}
	f := cmd.Flags()
	f.BoolVar(&req.Stream, "stream", false, "stream the answer as it comes")
	f.StringVar(&req.TaskID, "task", "", "answer a task that asked for input")
	f.StringVar(&req.ContextID, "context", "", "continue a conversation (its context id)")
	f.StringVar(&req.TokenEnv, "token-env", "", "environment variable holding the bearer token")
	f.BoolVar(&asJSON, "json", false, "print the reply as JSON")
	f.DurationVar(&timeout, "timeout", 5*time.Minute, "give up after this long")
	return cmd
}

// eventPrinter shows streamed events as they arrive: the answer as it
// grows, then the state the task ended in.
type eventPrinter struct {
	a        *app
	streamed bool // the answer is being printed (a line is open)
	answered bool // some of the answer was printed
}

func (p *eventPrinter) print(ev protocol.A2AEvent) {
	w := p.a.stdout
	switch ev.Kind {
	case "artifact":
		switch {
		case ev.Append:
			fmt.Fprint(w, ev.Text)
		case !p.answered:
			fmt.Fprint(w, ev.Text)
		}
		p.streamed, p.answered = true, true
	case "status":
		if p.streamed {
			fmt.Fprintln(w)
			p.streamed = false
		}
		switch {
		case ev.Text == "":
		case ev.State != "completed":
			fmt.Fprintf(w, "[%s] %s\n", ev.State, ev.Text)
		case !p.answered:
			fmt.Fprintln(w, ev.Text)
			p.answered = true
		}
	case "message":
		fmt.Fprintln(w, ev.Text)
	}
}
