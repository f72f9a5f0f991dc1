package loop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// States of a run, emitted as loop_state events and EvState route events.
const (
	StateIdle             = "idle"
	StateCompacting       = "compacting"
	StateStreaming        = "streaming"
	StateAwaitingApproval = "awaiting_approval"
	StateExecutingTools   = "executing_tools"
	StateFinalizing       = "finalizing"
)

// ErrApprovalTimeout is returned by Lane.Await when nobody answered in
// time; the call is denied.
var ErrApprovalTimeout = errors.New("approval timed out")

// Lane is what a run needs from its session: durable history and the
// approval channel. The session package implements it.
type Lane interface {
	// Commit appends messages the run produced to the history and
	// persists them; it returns once they are durable.
	Commit(ctx context.Context, msgs []beamclaw.Message) error
	// Replace swaps the whole history (after compaction) and persists it.
	Replace(ctx context.Context, history []beamclaw.Message) error
	// Allowed reports whether an "always" approval covers key.
	Allowed(key string) bool
	// Await asks the user about req and waits for the answer: once req
	// can be answered it calls asked, which delivers the request (a client
	// may answer the moment it sees it). An Always answer adds key to the
	// session allowlist. A timeout answers Deny with ErrApprovalTimeout.
	Await(ctx context.Context, req beamclaw.ApprovalRequest, key string, asked func()) (beamclaw.Decision, error)
	// Ask waits for the user's answer to a question a tool asks mid-call
	// (an MCP elicitation, already delivered to the route). A timeout
	// answers cancel with ErrApprovalTimeout.
	Ask(ctx context.Context, e beamclaw.Elicitation) (beamclaw.ElicitAnswer, error)
	// Spend records a model call the run made, for the usage ledger: the
	// lane writes it with its next write (Commit, Replace), or on its own
	// when the run ends first.
	Spend(call beamclaw.LLMCall)
	// Keep holds a tool's whole output, which the model gets only a view
	// of, for the run's next Commit: the one that carries the tool message
	// naming it. It returns the output's handle, unique in the session
	// (what tool_output reads it by), or "" when the lane keeps no
	// outputs (a detached run's).
	Keep(out Output) (handle string)
}

// Output is a tool's whole output, scrubbed, kept with the session
// because the model got only a view of it (tool.View).
type Output struct {
	Handle  string // set by Lane.Keep
	CallID  string // the tool call whose result it is (its tool message's ToolCallID)
	Tool    string
	Content string
}

// Run is one run: a user message (the last of History) to answer.
type Run struct {
	ID        string
	SessionID string
	UserID    string
	AgentID   string
	Channel   beamclaw.Channel
	// Trust is the channel whose rules the policy applies when it is not
	// Channel's own ("" = Channel; Inbound.Trust): a scheduled job made
	// through a remote channel is remote.
	Trust    beamclaw.Channel
	Autonomy beamclaw.Autonomy
	// History is the conversation so far, ending with the run's input.
	// The engine never modifies its elements.
	History []beamclaw.Message
	Route   beamclaw.Route
	Lane    Lane
	// NoApproval: nobody can answer approval requests on this route (an
	// ephemeral HTTP request); calls that would ask are denied.
	NoApproval bool
	// Sampling is the client's controls, sent with every model call of
	// the run (not with the hidden memory-flush or summary calls).
	Sampling *beamclaw.Sampling
	// Instructions are the client's instructions for this run, added to
	// the agent's system prompt ("" = none).
	Instructions string
	// Functions are the client's own function tools, offered beside the
	// agent's (a name the agent's tools already use is not offered): a
	// model response calling one ends the run (Run's EvFinal carries the
	// calls), after the agent's own calls of that response ran.
	Functions []beamclaw.ToolDef
	// Origin is the usage ledger's and the budgets' origin of its calls
	// (usage.Origin*: interactive, heartbeat, job, a2a, maintenance).
	Origin string
	// Maintain, when set, makes the run session maintenance instead of a
	// turn: no model turn, no tools, nothing on the route but the terminal
	// event (see Maintenance).
	Maintain *Maintenance
}

// trust is the channel whose rules the run follows.
func (r Run) trust() beamclaw.Channel {
	if r.Trust != "" {
		return r.Trust
	}
	return r.Channel
}

// Maintenance is what a maintenance run does to its session's history.
type Maintenance struct {
	// Flush runs the hidden memory-flush turn over the recent history (the
	// part that fits half the context window), so its durable facts reach
	// the workspace's memory before the session is archived.
	Flush bool
	// Compact compacts the history to TargetPct of the context window when
	// it is above ThresholdPct (the memory flush of the compacted part
	// first, as for a turn's compaction).
	Compact                 bool
	ThresholdPct, TargetPct int
}

// Engine runs runs. It is safe for concurrent use.
type Engine struct {
	opts Options
}

// New returns an Engine.
func New(opts Options) (*Engine, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Engine{opts: o}, nil
}

// Run answers r. It delivers exactly one terminal event (EvFinal or EvError)
// to r.Route and returns nil, or returns an error without a terminal event
// when the run could not be completed for a reason the caller must handle:
// ctx ended, or the lane failed to persist. A panic (a provider or tool bug)
// propagates; the session's supervisor restarts the loop.
func (e *Engine) Run(ctx context.Context, r Run) error {
	rs := &runState{e: e, r: r, history: r.History[:len(r.History):len(r.History)], start: e.opts.Clock.Now()}
	e.emit(ctx, r, beamclaw.EventAgentStart, slog.String("user_id", r.UserID), slog.String("agent_id", r.AgentID),
		slog.String("run_id", r.ID), slog.String("channel", string(r.Channel)))
	p, model, err := e.opts.Providers(r.AgentID)
	if err != nil {
		return rs.fail(ctx, err)
	}
	rs.provider, rs.model = p, model
	if r.Maintain != nil {
		return rs.maintain(ctx, *r.Maintain)
	}
	if err := rs.maybeCompact(ctx); err != nil {
		return err
	}
	if e.opts.Prompt != nil {
		if rs.system, rs.context, err = e.opts.Prompt(ctx, r.AgentID, r.UserID, lastUserText(rs.history)); err != nil {
			return rs.fail(ctx, fmt.Errorf("system prompt of agent %s: %w", r.AgentID, err))
		}
	}
	if r.Instructions != "" {
		rs.context = joinText(rs.context, r.Instructions)
	}
	if c, ok := e.opts.Tools.(cataloger); ok {
		rs.system += c.Catalog(r.AgentID)
	}
	rs.turn = turnStart(rs.history)
	rs.defs = withFunctions(e.toolDefs(r.AgentID), r.Functions)
	return rs.iterate(ctx)
}

// turnStart is where the run's own messages start in h: after the last
// message that is not a user's (the previous turn's answer or a tool
// result), so the user messages the run answers are its own.
func turnStart(h []beamclaw.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role != beamclaw.RoleUser {
			return i + 1
		}
	}
	return 0
}

// lastUserText is the content of the last user message in h.
func lastUserText(h []beamclaw.Message) string {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == beamclaw.RoleUser {
			return h[i].Content
		}
	}
	return ""
}

func (e *Engine) toolDefs(agentID string) []beamclaw.ToolDef {
	if e.opts.Tools == nil {
		return nil
	}
	specs := e.opts.Tools.Specs(agentID)
	defs := make([]beamclaw.ToolDef, 0, len(specs))
	for _, s := range specs {
		defs = append(defs, s.Def)
	}
	return defs
}

// withFunctions appends the client's functions to the agent's tools,
// leaving out a name the agent's tools use (the edge refuses those; a tool
// registered since keeps its name).
func withFunctions(defs, fns []beamclaw.ToolDef) []beamclaw.ToolDef {
	if len(fns) == 0 {
		return defs
	}
	out := slices.Grow(slices.Clip(defs), len(fns))
	for _, f := range fns {
		if !slices.ContainsFunc(defs, func(d beamclaw.ToolDef) bool { return d.Name == f.Name }) {
			out = append(out, f)
		}
	}
	return out
}

// isFunction reports whether name is one of the client's functions the
// run offered (and so runs on the client).
func (rs *runState) isFunction(name string) bool {
	if len(rs.r.Functions) == 0 {
		return false
	}
	for _, d := range rs.defs {
		if d.Name == name {
			return d.Source == beamclaw.SourceClient
		}
	}
	return false
}

func (e *Engine) emit(ctx context.Context, r Run, name beamclaw.EventName, attrs ...slog.Attr) {
	if e.opts.Emitter == nil {
		return
	}
	e.opts.Emitter.Emit(ctx, beamclaw.Event{Name: name, SessionID: r.SessionID, Time: e.opts.Clock.Now(), Attrs: attrs})
}

func ms(d time.Duration) slog.Attr { return slog.Int64("duration_ms", d.Milliseconds()) }
