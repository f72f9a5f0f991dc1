package loop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// asker is the beamclaw.Asker a run puts in the context of its tool
// calls: a question a tool asks mid-call (an MCP elicitation) goes to the
// run's route and waits on the lane like an approval. A run nobody can
// answer (the OpenAI-compatible API, a scheduled run) refuses at once,
// saying why.
func (rs *runState) asker() beamclaw.Asker {
	if rs.r.NoApproval || rs.r.Channel == beamclaw.ChannelScheduler {
		return cannotAsk{channel: rs.r.Channel}
	}
	return runAsker{rs: rs}
}

type cannotAsk struct{ channel beamclaw.Channel }

func (c cannotAsk) Ask(_ context.Context, e beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	return beamclaw.ElicitAnswer{Action: beamclaw.ElicitDecline}, fmt.Errorf(
		"%s asked %q, and the %s channel cannot put a question to the user (ask again from the TUI, Telegram or /ws): %w",
		e.Source, e.Message, c.channel, beamclaw.ErrCannotAsk)
}

// runAsker asks the run's user. It is called from the tool's goroutine
// while the run waits for the tool, so it touches only what is safe to
// share: the route (which serialises), the emitter and the lane.
type runAsker struct{ rs *runState }

func (a runAsker) Ask(ctx context.Context, e beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	rs := a.rs
	scrub := rs.e.opts.Scrub
	e.Message, e.URL = scrub.String(e.Message), scrub.String(e.URL)
	e.Schema = scrub.JSON(e.Schema)
	rs.emit(ctx, beamclaw.EventElicitRequested, slog.String("elicitation_id", e.ID), slog.String("source", e.Source),
		slog.String("tool_name", e.Tool))
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvElicitation, Elicit: &e})
	ans, err := rs.r.Lane.Ask(ctx, e)
	switch {
	case errors.Is(err, ErrApprovalTimeout):
		ans, err = beamclaw.ElicitAnswer{Action: beamclaw.ElicitCancel}, nil
	case err != nil:
		return beamclaw.ElicitAnswer{Action: beamclaw.ElicitCancel}, err
	}
	rs.emit(ctx, beamclaw.EventElicitResolved, slog.String("elicitation_id", e.ID), slog.String("action", ans.Action))
	rs.deliver(beamclaw.RunEvent{Type: beamclaw.EvElicitResult, Elicit: &e, Text: ans.Action})
	return ans, nil
}
