package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func (a *app) newChatCmd() *cobra.Command {
	var agent, message string
	cmd := &cobra.Command{
		Use:   "chat [MESSAGE...]",
		Short: "Send one message to an agent and stream its answer to stdout",
		Long: "chat sends one message (from -m, the arguments, or stdin when it is piped) to an agent, as the\n" +
			"terminal UI would (the same session), and streams the answer to stdout; tool activity goes to\n" +
			"stderr. A tool that needs approval is asked about on the terminal, or denied when there is none.\n" +
			"It starts the runtime in-process when no daemon runs.",
		Example: "  beamclaw chat -m \"what is on my calendar today?\"\n" +
			"  beamclaw chat --agent coder \"explain this error\" < build.log\n" +
			"  git diff | beamclaw chat -m \"write a commit message for this diff\"",
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := a.chatInput(message, args)
			if err != nil {
				return err
			}
			return a.runChat(cmd.Context(), agent, text)
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent to talk to (default: core.default_agent)")
	cmd.Flags().StringVarP(&message, "message", "m", "", "the message (piped stdin is appended to it)")
	_ = cmd.RegisterFlagCompletionFunc("agent", a.completeAgents)
	return cmd
}

// maxChatInput bounds what chat reads from stdin.
const maxChatInput = 4 << 20

// chatInput is -m, then the arguments, then piped stdin, joined by blank lines.
func (a *app) chatInput(message string, args []string) (string, error) {
	parts := []string{}
	if message != "" {
		parts = append(parts, message)
	}
	if len(args) > 0 {
		parts = append(parts, strings.Join(args, " "))
	}
	if !isTerminal(a.stdin) {
		b, err := io.ReadAll(io.LimitReader(a.stdin, maxChatInput+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if len(b) > maxChatInput {
			return "", fmt.Errorf("stdin holds more than %d MiB; send less", maxChatInput>>20)
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "", errors.New("nothing to send: give -m MESSAGE, the message as arguments, or pipe it on stdin")
	}
	return strings.Join(parts, "\n\n"), nil
}

// isTerminal reports whether r is a character device (a terminal).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (a *app) runChat(ctx context.Context, agent, text string) error {
	c, done, err := a.reachRuntime(ctx)
	if err != nil {
		return err
	}
	defer done()
	conn, err := c.Dial(ctx, agent, client.DialOptions{User: localUser(), Channel: "tui"})
	if err != nil {
		return fmt.Errorf("connect to the agent: %w", err)
	}
	defer conn.Close()
	id, err := conn.Send(ctx, text)
	if err != nil {
		return err
	}
	return a.streamAnswer(ctx, conn, id)
}

// localUser is the user the terminal talks as: BEAMCLAW_USER, else $USER.
func localUser() string {
	for _, k := range []string{"BEAMCLAW_USER", "USER"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return "user"
}

// streamAnswer prints the run of message id: text to stdout as it
// streams, tool activity and approvals on stderr.
func (a *app) streamAnswer(ctx context.Context, conn *client.Conn, id string) error {
	var runID string
	var streamed strings.Builder // text of the current model turn
	for {
		var f protocol.ServerFrame
		select {
		case <-ctx.Done():
			return ctx.Err()
		case fr, ok := <-conn.Events():
			if !ok {
				return fmt.Errorf("connection lost: %w", conn.Err())
			}
			f = fr
		}
		switch {
		case f.Type == protocol.FrameAck && f.ID == id:
			runID = f.RunID
			continue
		case f.Type == protocol.FrameError && f.ID == id:
			return errors.New(f.Message)
		case runID == "" || f.RunID != runID:
			continue
		}
		switch f.Type {
		case protocol.FrameChunk:
			streamed.WriteString(f.Text)
			fmt.Fprint(a.stdout, f.Text)
		case protocol.FrameToolStart:
			if streamed.Len() > 0 {
				fmt.Fprintln(a.stdout)
			}
			streamed.Reset()
			fmt.Fprintf(a.stderr, "⚙ %s %s\n", f.Tool, oneLine(string(f.Args), 100))
		case protocol.FrameToolResult:
			mark := "✓"
			if f.IsError {
				mark = "✗"
			}
			fmt.Fprintf(a.stderr, "  %s %s: %s\n", mark, f.Tool, oneLine(f.Result, 100))
		case protocol.FrameApprovalRequest:
			if err := a.chatApproval(ctx, conn, f); err != nil {
				return err
			}
		case protocol.FrameElicitation:
			fmt.Fprintln(a.stderr, "a tool asks a question chat cannot answer; declined (use `beamclaw tui`)")
			if f.Elicitation != nil {
				_ = conn.Answer(f.Elicitation.ID, protocol.ElicitDecline, nil)
			}
		case protocol.FrameFinal:
			rest := f.Text
			if s := streamed.String(); strings.HasPrefix(f.Text, s) {
				rest = f.Text[len(s):]
			} else if s != "" {
				rest = "\n" + f.Text
			}
			fmt.Fprint(a.stdout, rest)
			if !strings.HasSuffix(f.Text, "\n") {
				fmt.Fprintln(a.stdout)
			}
			return nil
		case protocol.FrameError:
			return errors.New(f.Message)
		}
	}
}

// chatApproval asks on the terminal, or denies when there is none.
func (a *app) chatApproval(ctx context.Context, conn *client.Conn, f protocol.ServerFrame) error {
	if f.Approval == nil {
		return nil
	}
	decision := protocol.DecisionDeny
	if isTerminal(a.stdin) { // not piped: the person is there to ask
		fmt.Fprintf(a.stderr, "Approve %s? %s [y/N/a] ", f.Approval.ToolName, oneLine(f.Approval.Prompt, 200))
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			decision = protocol.DecisionAllow
		case "a", "always":
			decision = protocol.DecisionAlways
		}
	} else {
		fmt.Fprintf(a.stderr, "%s needs approval; denied (no terminal to ask on: use `beamclaw tui`)\n", f.Approval.ToolName)
	}
	return conn.SendFrame(ctx, protocol.ClientFrame{Type: protocol.FrameApprove, ApprovalID: f.Approval.ID, Decision: decision})
}
