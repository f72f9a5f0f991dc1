package loop

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/scrub"
	"github.com/beamclaw/beamclaw-go/internal/tool"
	"github.com/beamclaw/beamclaw-go/internal/toolparse"
)

// Defaults of Options (spec: core.agentic_loop).
const (
	DefaultMaxToolIterations = 10
	// DefaultMaxToolCallsPerTurn and DefaultMaxTokensPerTurn are the hard
	// loop breaker: past either a run stops, whatever the model wants.
	DefaultMaxToolCallsPerTurn    = 50
	DefaultMaxTokensPerTurn       = 2_000_000
	DefaultMaxRepeatedToolCalls   = 3
	DefaultCompactionThresholdPct = 80
	DefaultCompactionTargetPct    = 40
)

// Tools is what the loop needs from the tool registry (*tool.Registry).
type Tools interface {
	Lookup(name string) (beamclaw.Tool, bool)
	Specs(agentID string) []beamclaw.ToolSpec
	Run(ctx context.Context, t beamclaw.Tool, inv beamclaw.Invocation) beamclaw.ToolResult
}

// cataloger is an optional interface of Tools: the system-prompt section
// listing the agent's deferred tools (*tool.Registry).
type cataloger interface {
	Catalog(agentID string) string
}

// Emitter receives observability events; Emit must not block (obs.Bus).
type Emitter interface {
	Emit(ctx context.Context, ev beamclaw.Event)
}

// Scrubber removes credentials (*scrub.Scrubber, which also knows the
// configured secret values).
type Scrubber interface {
	String(s string) string
	JSON(raw json.RawMessage) json.RawMessage
	// NewStream scrubs streamed text, holding back only what could still
	// become a secret (*scrub.Stream).
	NewStream(emit func(string)) *scrub.Stream
}

// ProviderFunc picks the provider and model for an agent.
type ProviderFunc func(agentID string) (p beamclaw.Provider, model string, err error)

// PromptFunc builds the system prompt of an agent for a run of userID:
// its stable part, the same for every user and turn of the agent
// (workspace files, skills), and its context, what differs per user or
// turn (daily logs, the user's own memory, recalled memory). input is the
// run's user message, for recalling related memory
// (core.agentic_loop.auto_context).
type PromptFunc func(ctx context.Context, agentID, userID, input string) (stable, context string, err error)

// WindowFunc returns the context window, in tokens, of a model.
type WindowFunc func(model string) int

// ParseFunc extracts tool calls from an assistant message and returns the
// text without the call markup (toolparse.Parse).
type ParseFunc func(msg beamclaw.Message) (calls []beamclaw.ToolCall, text string)

// PolicyFunc decides what to do with a call of a tool at an autonomy level
// on a channel (tool.Decide): the channel whose trust the run has
// (Run.Trust, else Run.Channel).
type PolicyFunc func(spec beamclaw.ToolSpec, autonomy beamclaw.Autonomy, channel beamclaw.Channel) tool.Verdict

// ShapeFunc is the allowlist key of a call that an "always" approves
// (tool.ArgShape).
type ShapeFunc func(name string, args json.RawMessage) string

// Options configure an Engine. Zero values take the documented defaults.
type Options struct {
	// Providers chooses provider and model per agent. Required.
	Providers ProviderFunc
	// Tools is the tool registry; nil offers no tools.
	Tools Tools
	// Policy defaults to tool.Decide with tools.remote_high_risk "approve".
	Policy PolicyFunc
	// Shape defaults to tool.ArgShape.
	Shape ShapeFunc
	// Prompt builds the system prompt; nil sends none.
	Prompt PromptFunc
	// Window gives the context window of a model (provider.ContextWindow
	// when nil or when it answers <= 0).
	Window WindowFunc
	// Scrub defaults to scrub.New() (patterns only, no literals).
	Scrub Scrubber
	// Parse defaults to toolparse.Parse (native, XML, fenced JSON).
	Parse ParseFunc
	// Emitter receives events; nil drops them.
	Emitter Emitter
	// Logger defaults to a discarding logger.
	Logger *slog.Logger
	// Workspace gives an agent's workspace directory for Invocation.
	Workspace func(agentID string) string
	// MemoryFlush, when set (core.agentic_loop.memory_flush), saves what
	// the hidden pre-compaction turn wrote down: before history is
	// summarised, the model is asked, out of sight of the user, for the
	// durable facts worth keeping, and MemoryFlush stores them (the daemon
	// appends them to the daily log of the session's user, or the agent's
	// under memory_scope: agent). Its failure is logged and compaction
	// goes on.
	MemoryFlush func(ctx context.Context, agentID, userID, notes string) error
	// Budgets, when set (core.budgets), reserve every model call's
	// estimate before it is made and settle it after; a spent budget
	// refuses the call (the run fails with its KindBudget error).
	Budgets beamclaw.Budgets
	// CompactionProvider and CompactionModel summarise old history
	// (default: the agent's provider and model).
	CompactionProvider beamclaw.Provider
	CompactionModel    string
	// Paging is the page size of tool results (tools.page_bytes,
	// tools.page_bytes_per_tool; by default from the model's window): a
	// result longer than it reaches the model as its head and tail, and
	// the whole is kept with the session (Lane.Keep).
	Paging tool.Paging

	MaxToolIterations      int // core.agentic_loop.max_tool_iterations (10)
	MaxRepeatedToolCalls   int // core.agentic_loop.max_repeated_tool_calls (3)
	MaxToolCallsPerTurn    int // core.agentic_loop.max_tool_calls_per_turn (50): the run stops before more
	MaxTokensPerTurn       int // core.agentic_loop.max_tokens_per_turn (2,000,000; -1 in Options: none): the run stops past it
	CompactionThresholdPct int // core.agentic_loop.compaction_threshold_pct (80)
	CompactionTargetPct    int // core.agentic_loop.compaction_target_pct (40)
	MaxTokens              int // per request; 0 lets the provider decide

	// Clock defaults to clock.System.
	Clock clock.Clock
}

func (o Options) withDefaults() (Options, error) {
	if o.Providers == nil {
		return o, errors.New("loop: Options.Providers is required")
	}
	if o.Policy == nil {
		o.Policy = func(spec beamclaw.ToolSpec, a beamclaw.Autonomy, channel beamclaw.Channel) tool.Verdict {
			return tool.Decide(spec, a, channel.Remote(), tool.RemoteHighRiskApprove)
		}
	}
	if o.Shape == nil {
		o.Shape = tool.ArgShape
	}
	if o.Scrub == nil {
		o.Scrub = scrub.New()
	}
	if o.Parse == nil {
		o.Parse = toolparse.Parse
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Clock = clock.Or(o.Clock)
	setDefault(&o.MaxToolIterations, DefaultMaxToolIterations)
	setDefault(&o.MaxRepeatedToolCalls, DefaultMaxRepeatedToolCalls)
	setDefault(&o.MaxToolCallsPerTurn, DefaultMaxToolCallsPerTurn)
	setDefault(&o.MaxTokensPerTurn, DefaultMaxTokensPerTurn)
	setDefault(&o.CompactionThresholdPct, DefaultCompactionThresholdPct)
	setDefault(&o.CompactionTargetPct, DefaultCompactionTargetPct)
	if o.CompactionTargetPct > o.CompactionThresholdPct {
		return o, errors.New("loop: compaction target above threshold")
	}
	return o, nil
}

func setDefault(v *int, d int) {
	if *v <= 0 {
		*v = d
	}
}
