package sandbox

import (
	"context"
	"encoding/json"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// RunTools is the Tools the daemon hands in: it acts through the
// beamclaw.ToolCaller that the agentic loop puts in the context of every
// tool call, so a script lists and calls exactly the tools its run may
// use (built-ins and MCP), under that run's policy, with approvals asked
// on its route and results scrubbed by the loop. The sandbox policy and
// the PII tokenizer apply on top.
type RunTools struct{}

var _ Tools = RunTools{}

// List implements Tools.
func (RunTools) List(ctx context.Context, _ Caller) ([]ToolInfo, error) {
	tc, err := toolCaller(ctx)
	if err != nil {
		return nil, err
	}
	specs := tc.Specs()
	out := make([]ToolInfo, 0, len(specs))
	for _, s := range specs {
		out = append(out, ToolInfo{Name: s.Def.Name, Description: s.Def.Description, Source: s.Def.Source,
			Schema: s.Def.Parameters})
	}
	return out, nil
}

// Call implements Tools.
func (RunTools) Call(ctx context.Context, _ Caller, name string, args json.RawMessage) (string, error) {
	tc, err := toolCaller(ctx)
	if err != nil {
		return "", err
	}
	return tc.CallTool(ctx, name, args)
}

func toolCaller(ctx context.Context) (beamclaw.ToolCaller, error) {
	tc, ok := beamclaw.ToolCallerFrom(ctx)
	if !ok {
		return nil, beamclaw.E("sandbox.RunTools", beamclaw.KindUnavailable,
			"tools can be called only from a script an agent's run started", nil)
	}
	return tc, nil
}
