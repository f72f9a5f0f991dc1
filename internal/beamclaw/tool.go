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
	Workspace string  // the agent's workspace directory
}

// Tool is something an agent can call. Execute returns the tool's output;
// an error becomes an error result shown to the model (its text must be
// safe to show). The loop scrubs both before they go anywhere.
type Tool interface {
	Spec() ToolSpec
	Execute(ctx context.Context, inv Invocation) (string, error)
}
