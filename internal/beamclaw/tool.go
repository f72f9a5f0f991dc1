package beamclaw

import (
	"context"
	"encoding/json"
)

// Risk says how much harm a tool can do; remote channels treat RiskHigh
// tools more strictly.
type Risk uint8

// Risk levels.
const (
	RiskLow    Risk = iota // reads only
	RiskMedium             // writes inside the agent's own space, or the network
	RiskHigh               // runs programs, deletes, reaches outside
)

func (r Risk) String() string {
	switch r {
	case RiskLow:
		return "low"
	case RiskMedium:
		return "medium"
	}
	return "high"
}

// ToolSpec is a tool's definition plus the policy facts the loop needs.
type ToolSpec struct {
	Def              ToolDef
	RequiresApproval bool
	MinAutonomy      Autonomy // the least autonomy at which it may run at all
	Risk             Risk
}

// Invocation is one call of a tool with the context it runs in.
type Invocation struct {
	Args      json.RawMessage
	CallID    string
	SessionID string
	UserID    string
	AgentID   string
	Channel   Channel // the channel of the run
	// Trust is the channel whose trust the run has: Channel, or for a
	// scheduled job made through a remote channel, that channel
	// (Inbound.Trust). Its Remote decides the remote-channel rules.
	Trust     Channel
	Autonomy  Autonomy // the run's autonomy (the agent's, under its channels' ceilings)
	Workspace string   // the agent's workspace directory
	// PageBytes is the page size of this call's result: the model gets
	// only the head and tail of a longer one (tool_output keeps its pages
	// within it).
	PageBytes int
}

// Tool is something an agent can call. Execute returns the tool's output;
// an error becomes an error result shown to the model (its text must be
// safe to show). The loop scrubs both before they go anywhere.
type Tool interface {
	Spec() ToolSpec
	Execute(ctx context.Context, inv Invocation) (string, error)
}

// ToolCaller runs tools for the run whose tool call is in progress, under
// that run's own policy, approvals and scrubbing. The loop puts one in the
// context of every tool call (WithToolCaller), so that a tool which calls
// other tools (the sandbox's bridge) never gets more than the run has.
type ToolCaller interface {
	// Specs lists the tools the run may call: its agent's tools that its
	// policy does not refuse outright (some may still ask for approval).
	Specs() []ToolSpec
	// CallTool runs one tool as if the model had called it: policy,
	// approval on the run's route, the registry's checks and timeout,
	// scrubbing. It returns the tool's output; a refusal or a failing
	// tool is an error whose text is safe to show.
	CallTool(ctx context.Context, name string, args json.RawMessage) (string, error)
}

type toolCallerKey struct{}

// WithToolCaller returns ctx carrying c.
func WithToolCaller(ctx context.Context, c ToolCaller) context.Context {
	return context.WithValue(ctx, toolCallerKey{}, c)
}

// ToolCallerFrom returns the ToolCaller of ctx, if any.
func ToolCallerFrom(ctx context.Context) (ToolCaller, bool) {
	c, ok := ctx.Value(toolCallerKey{}).(ToolCaller)
	return c, ok && c != nil
}
