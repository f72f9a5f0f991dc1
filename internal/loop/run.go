package loop

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// runState is one run in progress.
type runState struct {
	e        *Engine
	r        Run
	provider beamclaw.Provider
	model    string
	system   string // the stable part of the system prompt (ChatRequest.System)
	context  string // its part per user and turn (ChatRequest.Context)
	turn     int    // where the run's own messages start in history (ChatRequest.TurnStart)
	defs     []beamclaw.ToolDef
	history  []beamclaw.Message
	state    string
	usage    beamclaw.Usage
	start    time.Time
	calls    int      // tool calls issued, for generated call ids
	ran      int      // tool calls of the turn so far (the loop breaker)
	tokens   int      // prompt + completion tokens of the turn's calls, estimated where not reported (the loop breaker)
	notes    []string // budget warnings for the user, said after the answer
	lastCall string   // identity of the previous call, for the repeat guard
	repeats  int      // how many times in a row lastCall was issued
	chats    int      // model calls of the turn so far
}

// iterate streams, executes tools and loops until an answer or a limit.
func (rs *runState) iterate(ctx context.Context) error {
	opts := rs.e.opts
	overflowed := false
	for iter := 0; ; iter++ {
		rs.setState(ctx, StateStreaming)
		resp, err := rs.chat(ctx)
		if beamclaw.KindOf(err) == beamclaw.KindTooLarge && !overflowed && ctx.Err() == nil {
			// The provider's context window is full: compact a history
			// above the target down to it and ask once more (a short
			// history is not what overflowed: nothing to compact).
			overflowed = true
			if done, cerr := rs.compactAbove(ctx, opts.CompactionTargetPct, opts.CompactionTargetPct); cerr == nil && done {
				rs.setState(ctx, StateStreaming)
				resp, err = rs.chat(ctx)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return rs.fail(ctx, err)
		}
		calls, text := opts.Parse(resp.Message)
		text = opts.Scrub.String(text)
		switch {
		case len(calls) == 0:
			return rs.finish(ctx, text)
		case rs.ran+len(calls) > opts.MaxToolCallsPerTurn:
			return rs.limit(ctx, text, "tool_calls", fmt.Sprintf(
				"I stopped this turn: it would take more than %d tool calls (core.agentic_loop.max_tool_calls_per_turn), so I did not run the %d I was about to. Ask me to continue, or narrow the task.",
				opts.MaxToolCallsPerTurn, len(calls)))
		case opts.MaxTokensPerTurn > 0 && rs.tokens >= opts.MaxTokensPerTurn:
			return rs.limit(ctx, text, "tokens", fmt.Sprintf(
				"I stopped this turn: it used %d tokens, past the limit of %d a turn (core.agentic_loop.max_tokens_per_turn), so I did not run the tools I was about to. Ask me to continue, or narrow the task.",
				rs.tokens, opts.MaxTokensPerTurn))
		case iter >= opts.MaxToolIterations:
			return rs.finish(ctx, joinText(text, fmt.Sprintf(
				"I stopped because this request reached the limit of %d tool iterations. Ask me to continue if you want me to go on.",
				opts.MaxToolIterations)))
		}
		if name, ok := rs.repeated(calls); ok {
			return rs.finish(ctx, joinText(text, fmt.Sprintf(
				"I stopped because the tool %s was called with identical arguments %d times in a row; it looks like a loop. Please rephrase or give me more detail.",
				name, opts.MaxRepeatedToolCalls)))
		}
		rs.ran += len(calls)
		msgs, parked, err := rs.step(ctx, text, calls)
		if err != nil {
			return err
		}
		if len(parked) > 0 {
			return rs.park(ctx, text, msgs, parked)
		}
		if err := rs.r.Lane.Commit(ctx, msgs); err != nil {
			return rs.commitFailed(ctx, fmt.Errorf("commit tool step of run %s: %w", rs.r.ID, err))
		}
		rs.history = append(rs.history, msgs...)
	}
}

// chat makes one provider call, streaming text to the route.
func (rs *runState) chat(ctx context.Context) (beamclaw.ChatResponse, error) {
	sampling := rs.r.Sampling
	if sampling != nil && sampling.ToolChoice != nil && (rs.chats > 0 || len(rs.defs) == 0) {
		s := *sampling // tool_choice holds for the run's first call only
		s.ToolChoice, sampling = nil, &s
	}
	rs.chats++
	req := beamclaw.ChatRequest{Model: rs.model, System: rs.system, Context: rs.context, Messages: rs.history,
		Tools: rs.defs, MaxTokens: rs.e.opts.MaxTokens, Sampling: sampling, Conversation: rs.r.SessionID,
		TurnStart: rs.turn}
	count := len(rs.history)
	if rs.system != "" || rs.context != "" {
		count++
	}
	rs.emit(ctx, beamclaw.EventLLMRequest, slog.Int("message_count", count), slog.String("model", rs.model))
	st := rs.e.opts.Scrub.NewStream(func(s string) {
		rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: s})
	})
	t0 := rs.e.opts.Clock.Now()
	resp, err := rs.callModel(ctx, rs.provider, req, st.Write, false)
	d := rs.e.opts.Clock.Now().Sub(t0)
	if err != nil {
		rs.emit(ctx, beamclaw.EventLLMResponse, ms(d), slog.Bool("success", false),
			slog.String("error", rs.e.opts.Scrub.String(err.Error())))
		return resp, fmt.Errorf("chat with %s: %w", rs.provider.Name(), err)
	}
	st.Flush()
	rs.usage = rs.usage.Add(resp.Usage)
	rs.emit(ctx, beamclaw.EventLLMResponse, ms(d), slog.Bool("success", true), slog.String("model", resp.Model),
		slog.Int("prompt_tokens", resp.Usage.PromptTokens), slog.Int("completion_tokens", resp.Usage.CompletionTokens))
	return resp, nil
}

// callModel makes one model call within the budgets (Options.Budgets): its
// estimate is reserved first (a spent budget refuses it, or routes it to
// a cheaper model), then settled with what it used, which the lane
// records for the usage ledger. A call that fails after text reached the
// user was paid for: it is settled and recorded as estimated.
func (rs *runState) callModel(ctx context.Context, p beamclaw.Provider, req beamclaw.ChatRequest, onText func(string), hidden bool) (beamclaw.ChatResponse, error) {
	var hold beamclaw.Hold = noHold{}
	if b := rs.e.opts.Budgets; b != nil {
		in := promptBytes(req)
		in = (in+2)/3 + 8*(len(req.Messages)+1) // on the safe side: 3 bytes a token, and each message's framing
		out := req.MaxTokens
		if req.Sampling != nil {
			out = req.Sampling.MaxTokensWithin(out)
		}
		if out <= 0 {
			out, req.MaxTokens = beamclaw.DefaultAnswerCap, beamclaw.DefaultAnswerCap // the answer cannot pass its reservation
		}
		h, err := b.Reserve(ctx, beamclaw.Spend{Session: rs.r.SessionID, User: rs.r.UserID, Agent: rs.r.AgentID,
			Origin: rs.r.Origin, Provider: p.Name(), Model: req.Model, In: in, Out: out})
		if err != nil {
			return beamclaw.ChatResponse{}, err
		}
		if m := h.Model(); m != "" {
			req.Model = m
		}
		rs.notes = append(rs.notes, h.Warnings()...)
		hold = h
	}
	defer hold.Release() // a panic too: after Settle it does nothing
	var shown strings.Builder
	resp, err := p.Chat(ctx, req, func(s string) {
		shown.WriteString(s)
		if onText != nil {
			onText(s)
		}
	})
	if resp.Provider == "" {
		resp.Provider = p.Name()
	}
	if err != nil {
		if shown.Len() > 0 { // cut off after it answered: billed all the same
			resp.Message = beamclaw.Message{Role: beamclaw.RoleAssistant, Content: shown.String()}
			resp.Usage = beamclaw.Usage{}
			hold.Settle(rs.spend(req, resp, hidden), resp.Provider, orModel(resp.Model, req.Model))
		}
		return resp, err
	}
	u := rs.spend(req, resp, hidden)
	hold.Settle(u, resp.Provider, orModel(resp.Model, req.Model))
	return resp, nil
}

// noHold is the reservation of a call no budget applies to.
type noHold struct{}

func (noHold) Model() string                         { return "" }
func (noHold) Warnings() []string                    { return nil }
func (noHold) Settle(beamclaw.Usage, string, string) {}
func (noHold) Release()                              {}

func orModel(model, asked string) string {
	if model == "" {
		return asked
	}
	return model
}

// spend records a successful call with the lane (the usage ledger) and
// returns its usage: the provider's, or, when it reported none, the
// request's and the answer's bytes / 4, marked estimated.
func (rs *runState) spend(req beamclaw.ChatRequest, resp beamclaw.ChatResponse, hidden bool) beamclaw.Usage {
	u, estimated := resp.Usage, false
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		u, estimated = estimateUsage(req, resp.Message), true
	}
	rs.r.Lane.Spend(beamclaw.LLMCall{At: rs.e.opts.Clock.Now(), Provider: resp.Provider, Model: orModel(resp.Model, req.Model), Usage: u,
		Estimated: estimated, Hidden: hidden})
	rs.tokens += u.PromptTokens + u.CompletionTokens
	return u
}

// estimateUsage counts tokens as bytes / 4 (rounded up): the request's
// system prompt, messages and tool definitions, and the answer.
func estimateUsage(req beamclaw.ChatRequest, answer beamclaw.Message) beamclaw.Usage {
	in := promptBytes(req)
	out := len(answer.Content)
	for _, c := range answer.ToolCalls {
		out += len(c.Name) + len(c.Args)
	}
	u := beamclaw.Usage{PromptTokens: (in + 3) / 4, CompletionTokens: (out + 3) / 4}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// promptBytes is the size of what a request sends the model: the system
// prompt, the messages and their tool calls, the tool definitions.
func promptBytes(req beamclaw.ChatRequest) int {
	in := len(req.System) + len(req.Context)
	for _, m := range req.Messages {
		in += len(m.Content) + len(m.Role)
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Args)
		}
		for _, a := range m.Attachments {
			in += len(a.Data)
		}
	}
	for _, d := range req.Tools {
		in += len(d.Name) + len(d.Description) + len(d.Parameters)
	}
	return in
}

// finish persists the answer and delivers it as the run's final event.
func (rs *runState) finish(ctx context.Context, text string) error {
	rs.setState(ctx, StateFinalizing)
	for _, n := range rs.notes {
		text = joinText(text, "(Budget: "+n+".)")
	}
	msg := beamclaw.Message{Role: beamclaw.RoleAssistant, Content: text, Time: rs.e.opts.Clock.Now()}
	if err := rs.r.Lane.Commit(ctx, []beamclaw.Message{msg}); err != nil {
		return rs.commitFailed(ctx, fmt.Errorf("commit answer of run %s: %w", rs.r.ID, err))
	}
	usage := rs.usage
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: text, Usage: &usage})
	rs.complete(ctx, true)
	return nil
}

// park ends a run whose model called the client's functions: the step
// (the calls, and the results of the agent's own calls among them) is
// persisted, and the final event hands the client its calls. The client's
// results continue the turn as a run of their own.
func (rs *runState) park(ctx context.Context, text string, msgs []beamclaw.Message, calls []beamclaw.ToolCall) error {
	rs.setState(ctx, StateFinalizing)
	if err := rs.r.Lane.Commit(ctx, msgs); err != nil {
		return rs.commitFailed(ctx, fmt.Errorf("commit function calls of run %s: %w", rs.r.ID, err))
	}
	for _, n := range rs.notes {
		text = joinText(text, "(Budget: "+n+".)")
	}
	usage := rs.usage
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: text, Usage: &usage, Calls: calls})
	rs.complete(ctx, true)
	return nil
}

// limit ends a run the hard loop breaker stopped: the model's text and
// why, as the run's answer, and a turn_limit event.
func (rs *runState) limit(ctx context.Context, text, what, why string) error {
	rs.emit(ctx, beamclaw.EventTurnLimit, slog.String("limit", what), slog.Int("tool_calls", rs.ran),
		slog.Int("tokens", rs.tokens))
	return rs.finish(ctx, joinText(text, why))
}

// commitFailed handles a commit that failed: a database that cannot be
// written (disk full) fails the run with the store's words (a retry now
// would fail the same way; the user is told to retry later); anything else
// is a crash of the run, retried once by the session.
func (rs *runState) commitFailed(ctx context.Context, err error) error {
	if beamclaw.KindOf(err) == beamclaw.KindStorage {
		return rs.fail(ctx, err)
	}
	return err
}

// fail delivers err, in words fit for a user, as the run's terminal event.
func (rs *runState) fail(ctx context.Context, err error) error {
	rs.setState(ctx, StateFinalizing)
	if beamclaw.KindOf(err) != beamclaw.KindStorage { // the store logs its own failures, once
		rs.e.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "run failed", slog.String("session_id", rs.r.SessionID),
			slog.String("run_id", rs.r.ID), slog.String("err", rs.e.opts.Scrub.String(err.Error())))
	}
	msg := "the model provider failed; please retry"
	if beamclaw.KindOf(err) != beamclaw.KindInternal {
		msg = beamclaw.UserMessage(err)
	}
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvError, Text: msg, Kind: beamclaw.KindOf(err), RetryAfter: beamclaw.RetryAfterOf(err)})
	rs.complete(ctx, false)
	return nil
}

func (rs *runState) complete(ctx context.Context, ok bool) {
	rs.emit(ctx, beamclaw.EventTurnComplete, slog.Int64("total_duration_ms", rs.e.opts.Clock.Now().Sub(rs.start).Milliseconds()),
		slog.Bool("success", ok), slog.String("run_id", rs.r.ID))
	rs.setState(ctx, StateIdle)
}

// setState records a transition: a loop_state event, and an EvState route
// event while the run is still open.
func (rs *runState) setState(ctx context.Context, s string) {
	if rs.state == s {
		return
	}
	rs.emit(ctx, beamclaw.EventLoopState, slog.String("state", s), slog.String("from", rs.stateName()), slog.String("run_id", rs.r.ID))
	rs.state = s
	if s != StateIdle {
		rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvState, Text: s})
	}
}

func (rs *runState) stateName() string {
	if rs.state == "" {
		return StateIdle
	}
	return rs.state
}

func (rs *runState) deliver(ev beamclaw.RunEvent) {
	ev.RunID, ev.SessionID = rs.r.ID, rs.r.SessionID
	if rs.r.Route != nil {
		rs.r.Route.Deliver(ev)
	}
}

func (rs *runState) emit(ctx context.Context, name beamclaw.EventName, attrs ...slog.Attr) {
	rs.e.emit(ctx, rs.r, name, attrs...)
}

// repeated advances the repeat guard over a step's calls and reports the
// first call that reached MaxRepeatedToolCalls identical calls in a row.
func (rs *runState) repeated(calls []beamclaw.ToolCall) (string, bool) {
	for _, c := range calls {
		key := rs.e.opts.Shape(c.Name, c.Args)
		if key == rs.lastCall {
			rs.repeats++
		} else {
			rs.lastCall, rs.repeats = key, 1
		}
		if rs.repeats >= rs.e.opts.MaxRepeatedToolCalls {
			return c.Name, true
		}
	}
	return "", false
}

func joinText(a, b string) string {
	a = strings.TrimSpace(a)
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}
