package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
	"github.com/beamclaw/beamclaw-go/internal/toolparse"
)

// step runs the tool calls of one model response and returns the messages
// to append: the assistant message carrying the (scrubbed) calls, then one
// tool message per call it ran, in order. Calls of the client's functions
// are not run here: they are returned (scrubbed) for the client.
func (rs *runState) step(ctx context.Context, text string, calls []beamclaw.ToolCall) (msgs []beamclaw.Message, parked []beamclaw.ToolCall, err error) {
	now := rs.e.opts.Clock.Now()
	shown := make([]beamclaw.ToolCall, len(calls))
	for i := range calls {
		// Calls parsed from text get run-unique ids (the same text
		// repeated would otherwise repeat its derived ids).
		if calls[i].ID == "" || (calls[i].Source != "" && calls[i].Source != toolparse.SourceNative) {
			rs.calls++
			calls[i].ID = "call_" + rs.r.ID + "_" + strconv.Itoa(rs.calls)
		}
		shown[i] = calls[i]
		shown[i].Args = rs.e.opts.Scrub.JSON(calls[i].Args)
	}
	msgs = make([]beamclaw.Message, 0, len(calls)+1)
	msgs = append(msgs, beamclaw.Message{Role: beamclaw.RoleAssistant, Content: text, ToolCalls: shown, Time: now})
	for i := range calls {
		if rs.isFunction(calls[i].Name) {
			parked = append(parked, shown[i])
			continue
		}
		res, err := rs.call(ctx, calls[i], shown[i])
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: calls[i].ID, Name: calls[i].Name,
			Content: res.Content, Time: rs.e.opts.Clock.Now()})
	}
	return msgs, parked, nil
}

// call applies policy and approval to one call and runs it. The result is
// scrubbed. An error means the run must stop (ctx ended).
func (rs *runState) call(ctx context.Context, c, shown beamclaw.ToolCall) (beamclaw.ToolResult, error) {
	t, v, refused, done := rs.resolve(c)
	if done { // the route hears of it too: the call is in the history with this result
		rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvToolResult, Tool: &shown, Result: &refused})
		return refused, nil
	}
	if v.Action == tool.ActionAsk {
		ok, reason, err := rs.approve(ctx, t.Spec(), shown, v.Reason, func() string {
			rs.setState(ctx, StateAwaitingApproval)
			rs.calls++
			return "appr_" + rs.r.ID + "_" + strconv.Itoa(rs.calls)
		})
		if err != nil {
			return beamclaw.ToolResult{}, err
		}
		if !ok {
			return deniedResult(c, reason), nil
		}
	}
	rs.setState(ctx, StateExecutingTools)
	return rs.execute(ctx, t, c, shown, true), nil
}

// resolve finds a call's tool and applies the policy. done is true when
// the call is refused (an unknown tool, a denial), with refused its result.
func (rs *runState) resolve(c beamclaw.ToolCall) (t beamclaw.Tool, v tool.Verdict, refused beamclaw.ToolResult, done bool) {
	opts := rs.e.opts
	if opts.Tools == nil {
		return nil, v, deniedResult(c, "no tools are available"), true
	}
	t, ok := opts.Tools.Lookup(c.Name)
	if !ok {
		return nil, v, beamclaw.ToolResult{ToolCallID: c.ID, Name: c.Name, IsError: true,
			Content: fmt.Sprintf("unknown tool %q", c.Name)}, true
	}
	v = opts.Policy(t.Spec(), rs.r.Autonomy, rs.r.trust())
	if v.Action == tool.ActionDeny {
		return nil, v, deniedResult(c, v.Reason), true
	}
	return t, v, beamclaw.ToolResult{}, false
}

func deniedResult(c beamclaw.ToolCall, reason string) beamclaw.ToolResult {
	return beamclaw.ToolResult{ToolCallID: c.ID, Name: c.Name, IsError: true, Content: "denied: " + reason}
}

// approve asks the lane for a decision unless the allowlist covers the
// call; asking, called only when a question is put, names the request.
func (rs *runState) approve(ctx context.Context, spec beamclaw.ToolSpec, c beamclaw.ToolCall, why string, asking func() string) (bool, string, error) {
	opts := rs.e.opts
	if rs.r.NoApproval {
		reason := noApprovalReason(c.Name, why, rs.r.Autonomy, rs.r.Channel)
		// Text is the call's result, as the history keeps it.
		rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvNeedsApproval, Tool: &c, Text: deniedResult(c, reason).Content})
		return false, reason, nil
	}
	key := opts.Shape(c.Name, c.Args)
	if rs.r.Lane.Allowed(key) {
		return true, "", nil
	}
	req := beamclaw.ApprovalRequest{
		ID:       asking(),
		ToolName: c.Name,
		Args:     string(c.Args),
		Risk:     spec.Risk.String(),
		Prompt: fmt.Sprintf("Allow %s with %s? (%s) Reply /yes, /no or /always.",
			c.Name, string(c.Args), why),
	}
	rs.emit(ctx, beamclaw.EventApprovalRequested, slog.String("tool_name", c.Name), slog.String("args", req.Args),
		slog.String("approval_id", req.ID))
	d, err := rs.r.Lane.Await(ctx, req, key, func() {
		rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalRequest, Approval: &req, Tool: &c})
	})
	reason := "the user denied it"
	switch {
	case errors.Is(err, ErrApprovalTimeout):
		d, reason = beamclaw.Deny, "nobody approved it in time"
	case err != nil:
		return false, "", fmt.Errorf("await approval %s: %w", req.ID, err)
	}
	rs.emit(ctx, beamclaw.EventApprovalResolved, slog.String("tool_name", c.Name), slog.String("decision", string(d)),
		slog.String("approval_id", req.ID))
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalResult, Approval: &req, Text: string(d)})
	if d == beamclaw.Allow || d == beamclaw.Always {
		return true, "", nil
	}
	return false, fmt.Sprintf("tool %s was not run: %s", c.Name, reason), nil
}

// execute runs an allowed call and scrubs its result. The tool finds in
// its context the run's Asker and a ToolCaller for calls of its own. A
// result for the history (paged: a call of the model's, not a tool's own)
// longer than the page size is kept whole and replaced by its view.
func (rs *runState) execute(ctx context.Context, t beamclaw.Tool, c, shown beamclaw.ToolCall, paged bool) beamclaw.ToolResult {
	opts := rs.e.opts
	rs.emit(ctx, beamclaw.EventToolCallStart, slog.String("tool_name", c.Name), slog.String("args", string(shown.Args)))
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvToolStart, Tool: &shown})
	inv := beamclaw.Invocation{Args: json.RawMessage(c.Args), CallID: c.ID, SessionID: rs.r.SessionID,
		UserID: rs.r.UserID, AgentID: rs.r.AgentID, Channel: rs.r.Channel, Trust: rs.r.trust(), Autonomy: rs.r.Autonomy,
		PageBytes: opts.Paging.For(c.Name, rs.e.Window(rs.model))}
	if opts.Workspace != nil {
		inv.Workspace = opts.Workspace(rs.r.AgentID)
	}
	tctx := beamclaw.WithAsker(ctx, rs.asker())
	tctx = beamclaw.WithToolCaller(tctx, &nestedCaller{rs: rs, parent: c.ID})
	t0 := opts.Clock.Now()
	res := opts.Tools.Run(tctx, t, inv)
	res.ToolCallID, res.Name = c.ID, c.Name
	res.Content = opts.Scrub.String(res.Content)
	if paged && len(res.Content) > inv.PageBytes {
		res.Content = tool.View(res.Content, inv.PageBytes,
			rs.r.Lane.Keep(Output{CallID: c.ID, Tool: c.Name, Content: res.Content}))
	}
	rs.emit(ctx, beamclaw.EventToolCallResult, slog.String("tool_name", c.Name), ms(opts.Clock.Now().Sub(t0)),
		slog.Bool("success", !res.IsError))
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvToolResult, Tool: &shown, Result: &res})
	return res
}

// noApprovalReason tells the model (and so the user) why a call that
// needs approval was refused on a channel that cannot ask, and what
// would allow it: at full autonomy only a channel that can ask (the
// policy asks for high-risk tools on remote channels at any level).
func noApprovalReason(tool, why string, a beamclaw.Autonomy, ch beamclaw.Channel) string {
	if a == beamclaw.Full {
		return fmt.Sprintf("tool %s needs approval (%s), and the %s channel cannot ask for one; "+
			"run it from a channel that can (the TUI, Telegram or /ws)", tool, why, ch)
	}
	return fmt.Sprintf("tool %s needs approval (%s), and the %s channel cannot ask for one; "+
		"run it from a channel that can (the TUI, Telegram or /ws), or raise core.channel_autonomy.%s "+
		"and the agent's autonomy_level to full", tool, why, ch, ch)
}
