package loop

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// SummaryPrefix starts the system message that replaces compacted history.
const SummaryPrefix = "[Conversation summary]: "

const summaryInstruction = "You compact conversations. Write a concise, factual summary of the " +
	"conversation below: facts, decisions, names, numbers, files and open tasks the assistant " +
	"must remember. No preamble, no commentary."

// EstimateTokens is the spec's estimate: about four bytes per token.
func EstimateTokens(msgs []beamclaw.Message) int {
	n := 0
	for i := range msgs {
		n += messageTokens(&msgs[i])
	}
	return n
}

func messageTokens(m *beamclaw.Message) int {
	n := len(m.Content)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Args)
	}
	return n / 4
}

// Window returns the context window used for model.
func (e *Engine) Window(model string) int {
	if e.opts.Window != nil {
		if w := e.opts.Window(model); w > 0 {
			return w
		}
	}
	return provider.ContextWindow(model)
}

// maybeCompact compacts the history when it exceeds the threshold.
func (rs *runState) maybeCompact(ctx context.Context) error {
	_, err := rs.compactAbove(ctx, rs.e.opts.CompactionThresholdPct, rs.e.opts.CompactionTargetPct)
	return err
}

// maintain is a maintenance run: a memory flush of the recent history
// and/or a compaction, then an empty final event.
func (rs *runState) maintain(ctx context.Context, m Maintenance) error {
	rs.setState(ctx, StateCompacting)
	if m.Flush && rs.e.opts.MemoryFlush != nil && len(rs.history) > 0 {
		recent := rs.history[splitPoint(rs.history, rs.e.Window(rs.model)/2):]
		if err := rs.flushMemory(ctx, recent); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return rs.fail(ctx, err)
		}
	}
	compacted := false
	if m.Compact {
		var err error
		if compacted, err = rs.compactAbove(ctx, m.ThresholdPct, m.TargetPct); err != nil {
			return err
		}
	}
	text := ""
	if compacted {
		text = "compacted"
	}
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: text})
	rs.setState(ctx, StateIdle)
	return nil
}

// compactAbove compacts the history to targetPct of the window when it is
// above thresholdPct, and reports whether it did.
func (rs *runState) compactAbove(ctx context.Context, thresholdPct, targetPct int) (bool, error) {
	opts := rs.e.opts
	window := rs.e.Window(rs.model)
	if EstimateTokens(rs.history)*100 <= window*thresholdPct {
		return false, nil
	}
	rs.setState(ctx, StateCompacting)
	cut := splitPoint(rs.history, window*targetPct/100)
	if cut == 0 {
		return false, nil
	}
	if opts.MemoryFlush != nil {
		if err := rs.flushMemory(ctx, rs.history[:cut]); err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			opts.Logger.LogAttrs(ctx, slog.LevelWarn, "memory flush before compaction failed",
				slog.String("session_id", rs.r.SessionID), slog.String("err", opts.Scrub.String(err.Error())))
		}
	}
	old, kept := rs.history[:cut], rs.history[cut:]
	next := make([]beamclaw.Message, 0, len(kept)+1)
	summary, err := rs.summarise(ctx, old)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		opts.Logger.LogAttrs(ctx, slog.LevelWarn, "compaction summary failed; trimming",
			slog.String("session_id", rs.r.SessionID), slog.String("err", opts.Scrub.String(err.Error())))
	} else {
		next = append(next, beamclaw.Message{Role: beamclaw.RoleSystem, Content: SummaryPrefix + summary,
			Time: opts.Clock.Now()})
	}
	next = append(next, kept...)
	if err := rs.r.Lane.Replace(ctx, next); err != nil {
		return false, fmt.Errorf("replace compacted history of %s: %w", rs.r.SessionID, err)
	}
	// The system prompt and the tools, the prefix every request shares,
	// stay as they are: only the history after them is rewritten, so the
	// provider's cache loses what it held of the earlier turns.
	lost := EstimateTokens(rs.history[:turnStart(rs.history)])
	rs.emit(ctx, beamclaw.EventCompactionComplete, slog.Int("before", len(rs.history)), slog.Int("after", len(next)),
		slog.Bool("summarised", err == nil), slog.Int("cached_tokens_lost", lost))
	rs.history = next[:len(next):len(next)]
	return true, nil
}

// splitPoint returns the index of the first message kept: the most recent
// messages whose tokens fit budget, always including the last user message
// (the run's input) and what follows it, never starting with tool results
// whose call was cut away.
func splitPoint(h []beamclaw.Message, budget int) int {
	last := len(h) - 1
	for last > 0 && h[last].Role != beamclaw.RoleUser {
		last--
	}
	used := 0
	cut := len(h)
	for cut > 0 {
		t := messageTokens(&h[cut-1])
		if used+t > budget && cut <= last {
			break
		}
		used += t
		cut--
	}
	for cut < last && h[cut].Role == beamclaw.RoleTool {
		cut++
	}
	return cut
}

// flushInstruction is the hidden pre-compaction turn's system prompt.
const flushInstruction = "The conversation below is about to be compacted and its details " +
	"will be lost. Write down, as short markdown bullet points, the durable facts worth " +
	"remembering for later conversations: the user's preferences, decisions, names, " +
	"commitments and open tasks. Write only the bullets. If nothing is worth keeping, " +
	"answer exactly " + flushNothing + "."

// flushNothing is the hidden turn's answer when nothing is worth saving.
const flushNothing = "NOTHING"

// flushMemory runs the hidden memory-flush turn over the messages about to
// be compacted and hands the notes to Options.MemoryFlush. Nothing of it
// reaches the route or the history.
func (rs *runState) flushMemory(ctx context.Context, old []beamclaw.Message) error {
	req := beamclaw.ChatRequest{Model: rs.model, System: flushInstruction, Messages: []beamclaw.Message{
		{Role: beamclaw.RoleUser, Content: transcript(old)},
	}}
	resp, err := rs.callModel(ctx, rs.provider, req, func(string) {}, true)
	if err != nil {
		return fmt.Errorf("memory flush turn: %w", err)
	}
	notes := strings.TrimSpace(rs.e.opts.Scrub.String(resp.Message.Content))
	saved := notes != "" && !strings.EqualFold(notes, flushNothing)
	if saved {
		if err := rs.e.opts.MemoryFlush(ctx, rs.r.AgentID, rs.r.UserID, notes); err != nil {
			return fmt.Errorf("save flushed memory: %w", err)
		}
	}
	rs.emit(ctx, beamclaw.EventMemoryFlush, slog.Bool("saved", saved), slog.Int("bytes", len(notes)))
	return nil
}

// transcript renders messages as plain text for a hidden turn.
func transcript(msgs []beamclaw.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "%s called %s %s\n", m.Role, c.Name, c.Args)
		}
	}
	return b.String()
}

// summarise asks the compaction provider for a summary of old.
func (rs *runState) summarise(ctx context.Context, old []beamclaw.Message) (string, error) {
	p, model := rs.provider, rs.model
	if rs.e.opts.CompactionProvider != nil {
		p = rs.e.opts.CompactionProvider
	}
	if rs.e.opts.CompactionModel != "" {
		model = rs.e.opts.CompactionModel
	}
	req := beamclaw.ChatRequest{Model: model, System: summaryInstruction, Messages: []beamclaw.Message{
		{Role: beamclaw.RoleUser, Content: transcript(old)},
	}}
	resp, err := rs.callModel(ctx, p, req, func(string) {}, true)
	if err != nil {
		return "", fmt.Errorf("summarise %d messages: %w", len(old), err)
	}
	s := strings.TrimSpace(rs.e.opts.Scrub.String(resp.Message.Content))
	if s == "" {
		return "", fmt.Errorf("summarise %d messages: empty summary", len(old))
	}
	return s, nil
}

// AgentWindow returns the model an agent uses and its context window
// (0 and "" when the agent has no provider).
func (e *Engine) AgentWindow(agentID string) (model string, window int) {
	if _, model, err := e.opts.Providers(agentID); err == nil {
		return model, e.Window(model)
	}
	return "", 0
}
