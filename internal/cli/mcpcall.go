package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/elicit"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func (a *app) newMCPCallCmd() *cobra.Command {
	var (
		mode   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:               "call SERVER TOOL [JSON]",
		ValidArgsFunction: a.completeMCPServers,
		Short:             "Call one tool of an MCP server and print its result",
		Long: "call runs one tool with the same trust, pinning and scrubbing as the agent's (a tool whose\n" +
			"definition changed is refused; the first run pins it). Through the running daemon's connection,\n" +
			"or on a connection of its own without a daemon (logging in on the way when the server asks).\n" +
			"When the server asks a question (elicitation), --elicit ask answers on the terminal (without a\n" +
			"daemon), defaults accepts the schema's defaults, decline declines.",
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			var raw json.RawMessage
			if len(args) == 3 {
				raw = json.RawMessage(args[2])
			}
			switch mode {
			case protocol.ElicitAsk, protocol.ElicitDefaults, protocol.ElicitDecline:
			default:
				return fmt.Errorf("--elicit %q: want ask, defaults or decline", mode)
			}
			show := func(authURL string) {
				fmt.Fprintf(a.stderr, "MCP server %q needs a login. Open this URL in a browser:\n\n%s\n\n", args[0], authURL)
			}
			asker := &termAsker{in: bufio.NewReader(a.stdin), out: a.stderr}
			res, err := a.backend().MCPCall(cmd.Context(), args[0], args[1], raw, mode, asker, show)
			if err != nil {
				return err
			}
			if asJSON {
				if err := a.printJSON(res); err != nil {
					return err
				}
			} else {
				a.printCall(res)
			}
			if res.IsError {
				return &exitError{code: 1, err: fmt.Errorf("the tool %s reported an error", res.Tool)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&mode, "elicit", protocol.ElicitAsk, "answer the server's questions: ask, defaults or decline")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func (a *app) printCall(res protocol.MCPCallResult) {
	if res.Text != "" {
		fmt.Fprintln(a.stdout, res.Text)
	}
	if len(res.Structured) > 0 {
		fmt.Fprintln(a.stdout, "structured content:", string(res.Structured))
	}
	for _, n := range res.Notes {
		fmt.Fprintln(a.stderr, "note: the server asked a question nobody could answer:", n)
	}
}

// termAsker answers an elicitation on the terminal, field by field: an
// empty line takes the default, /decline and /cancel end it.
type termAsker struct {
	in  *bufio.Reader
	out io.Writer
}

var _ beamclaw.Asker = (*termAsker)(nil)

func (t *termAsker) Ask(ctx context.Context, e beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	fmt.Fprintf(t.out, "\n%s asks: %s\n", e.Source, e.Message)
	if e.URL != "" {
		fmt.Fprintf(t.out, "Open %s\nthen press Enter to go on (or type /decline): ", e.URL)
		line, err := t.line(ctx)
		if err != nil {
			return beamclaw.ElicitAnswer{Action: beamclaw.ElicitCancel}, nil
		}
		if strings.TrimSpace(line) == "/decline" {
			return beamclaw.ElicitAnswer{Action: beamclaw.ElicitDecline}, nil
		}
		return beamclaw.ElicitAnswer{Action: beamclaw.ElicitAccept}, nil
	}
	form, err := elicit.Parse(e.Schema)
	if err != nil {
		return beamclaw.ElicitAnswer{}, err
	}
	fmt.Fprintln(t.out, "(Enter takes the default; /decline or /cancel to refuse)")
	content := map[string]any{}
	for _, f := range form.Fields {
		for {
			fmt.Fprintf(t.out, "  %s: ", f.Label())
			line, err := t.line(ctx)
			if err != nil {
				return beamclaw.ElicitAnswer{Action: beamclaw.ElicitCancel}, nil
			}
			switch line = strings.TrimSpace(line); line {
			case "/decline":
				return beamclaw.ElicitAnswer{Action: beamclaw.ElicitDecline}, nil
			case "/cancel":
				return beamclaw.ElicitAnswer{Action: beamclaw.ElicitCancel}, nil
			case "":
				if f.Default != nil || !f.Required {
					break
				}
				fmt.Fprintln(t.out, "  a value is required")
				continue
			default:
				v, err := f.Value(line)
				if err != nil {
					fmt.Fprintln(t.out, " ", err)
					continue
				}
				content[f.Name] = v
			}
			break
		}
	}
	return beamclaw.ElicitAnswer{Action: beamclaw.ElicitAccept, Content: content}, nil
}

// line reads one line, or fails when input ends or ctx does.
func (t *termAsker) line(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s, err := t.in.ReadString('\n')
	if err != nil && s == "" {
		return "", err
	}
	return s, nil
}
