package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// Detached is a run in no session (see RunDetached).
type Detached struct {
	Agent string
	// User is whose run it is: its prompt carries that user's own memory
	// (memory_scope: user); "" for nobody's (an OpenAI API request
	// without a user id), which reads the agent's shared files only.
	User     string
	Trust    beamclaw.Channel  // the channel whose trust the run has ("" = Channel; Inbound.Trust)
	Channel  beamclaw.Channel  // its channel's policy applies (remote or local)
	Autonomy beamclaw.Autonomy // a ceiling below the agent's and the channel's ("" = none)
	History  []beamclaw.Message
	Sampling *beamclaw.Sampling
	// Functions are the client's own function tools (loop.Run.Functions),
	// Instructions its instructions for the run (loop.Run.Instructions).
	Functions    []beamclaw.ToolDef
	Instructions string
	// Origin is the usage ledger's origin of its calls (usage.Origin*;
	// "" = by its channel).
	Origin string
}

// RunDetached runs one turn over d.History alone, stored nowhere, with
// nobody to answer approvals (a call that would ask is denied with a note
// saying so): the OpenAI API's stateless requests and the scheduler's
// light-context heartbeats. It returns when the run ends.
func (m *Manager) RunDetached(ctx context.Context, d Detached, route beamclaw.Route) (runID string, err error) {
	runID = m.newID("run")
	agentID, history, sampling := d.Agent, d.History, d.Sampling
	sessionID := beamclaw.EphemeralPrefix + runID
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
	lane := &ephemeralLane{}
	d.User = m.opts.Person(d.User)
	defer func() { // a panicking run's calls were paid for too
		if es := m.detachedUsage(d, sessionID, lane.spent); len(es) > 0 {
			if rerr := m.opts.Ledger.Record(context.WithoutCancel(ctx), es); rerr != nil && !errors.Is(rerr, usage.ErrNotWritable) {
				m.log.Warn("usage ledger", "run_id", runID, "err", rerr)
			}
		}
	}()
	err = m.opts.Engine.Run(ctx, loop.Run{
		ID: runID, SessionID: sessionID, UserID: d.User, AgentID: agentID, Channel: d.Channel, Trust: d.Trust,
		Origin:   cmp.Or(d.Origin, usage.OriginOf(d.Channel, "", false)),
		Autonomy: m.autonomy(beamclaw.Inbound{AgentID: agentID, Channel: d.Channel, Trust: d.Trust, Autonomy: d.Autonomy}), History: slices.Clip(history), Route: or,
		Lane: lane, NoApproval: true, Sampling: sampling, Functions: d.Functions,
		Instructions: d.Instructions,
	})
	return runID, err
}

// detachedUsage is the ledger entries of the calls a detached run made.
func (m *Manager) detachedUsage(d Detached, sessionID string, calls []beamclaw.LLMCall) []usage.Entry {
	if len(calls) == 0 || m.opts.Ledger == nil {
		return nil
	}
	origin := d.Origin
	if origin == "" {
		origin = usage.OriginOf(d.Channel, "", false)
	}
	return m.opts.Ledger.Entries(usage.Attribution{Session: sessionID, User: d.User, Agent: d.Agent, Channel: d.Channel, Origin: origin}, calls)
}

// ephemeralLane keeps nothing but the calls its run made (for the
// ledger, once the run ended).
type ephemeralLane struct{ spent []beamclaw.LLMCall }

// Spend implements loop.Lane.
func (l *ephemeralLane) Spend(call beamclaw.LLMCall) { l.spent = append(l.spent, call) }

func (*ephemeralLane) Commit(context.Context, []beamclaw.Message) error  { return nil }
func (*ephemeralLane) Replace(context.Context, []beamclaw.Message) error { return nil }
func (*ephemeralLane) Allowed(string) bool                               { return false }
func (*ephemeralLane) Await(_ context.Context, _ beamclaw.ApprovalRequest, _ string, asked func()) (beamclaw.Decision, error) {
	asked() // shown, and denied: nobody can answer a detached run
	return beamclaw.Deny, nil
}

func (*ephemeralLane) Ask(context.Context, beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	return beamclaw.ElicitAnswer{Action: beamclaw.ElicitDecline}, beamclaw.ErrCannotAsk
}
