package session

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// RunEphemeral answers history (the caller's whole conversation, ending
// with the new user message, with the caller's sampling controls) for agentID without a session: nothing is
// stored and no approval can be asked, so tools that need one are denied
// unless the agent's autonomy allows them. It runs in the caller's
// goroutine and returns when route got its terminal event; the error is
// only for the caller's logs (route already got an EvError).
func (m *Manager) RunEphemeral(ctx context.Context, agentID string, history []beamclaw.Message, sampling *beamclaw.Sampling, route beamclaw.Route) (runID string, err error) {
	runID = m.newID("run")
	sessionID := "ephemeral-" + runID
	or := newOnceRoute(route)
	defer func() {
		if v := recover(); v != nil {
			m.log.LogAttrs(ctx, slog.LevelError, "ephemeral run panicked", slog.String("run_id", runID),
				slog.Any("panic", v))
			err = fmt.Errorf("ephemeral run %s panicked: %v", runID, v)
		}
		if !or.ended() {
			text := msgCrashed
			if ctx.Err() != nil {
				text = "the request was canceled"
			}
			or.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: runID, SessionID: sessionID, Text: text})
		}
	}()
	err = m.opts.Engine.Run(ctx, loop.Run{
		ID: runID, SessionID: sessionID, AgentID: agentID, Channel: beamclaw.ChannelHTTP,
		Autonomy: m.opts.Autonomy(agentID), History: slices.Clip(history), Route: or,
		Lane: ephemeralLane{}, NoApproval: true, Sampling: sampling,
	})
	return runID, err
}

// ephemeralLane keeps nothing.
type ephemeralLane struct{}

func (ephemeralLane) Commit(context.Context, []beamclaw.Message) error  { return nil }
func (ephemeralLane) Replace(context.Context, []beamclaw.Message) error { return nil }
func (ephemeralLane) Allowed(string) bool                               { return false }
func (ephemeralLane) Await(context.Context, beamclaw.ApprovalRequest, string) (beamclaw.Decision, error) {
	return beamclaw.Deny, nil
}

func (ephemeralLane) Ask(context.Context, beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	return beamclaw.ElicitAnswer{Action: beamclaw.ElicitDecline}, beamclaw.ErrCannotAsk
}
