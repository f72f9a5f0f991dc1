package loop

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// nestedCaller is the beamclaw.ToolCaller in the context of one tool call
// (parent): the calls it makes go through the run's own policy, approvals
// (asked on the run's route, the "always" allowlist included), registry
// and scrubber, and are shown on the route like the model's calls. It
// runs on the tool's goroutine while the run waits for the tool, so it
// changes none of the run's state: its ids come from its own counter and
// it touches only what is safe to share (the route, which serialises, the
// emitter and the lane).
type nestedCaller struct {
	rs     *runState
	parent string // the id of the call whose tool this serves
	n      atomic.Int64
}

var _ beamclaw.ToolCaller = (*nestedCaller)(nil)

// Specs lists the agent's tools that the run's policy does not deny.
func (nc *nestedCaller) Specs() []beamclaw.ToolSpec {
	opts := nc.rs.e.opts
	if opts.Tools == nil {
		return nil
	}
	all := opts.Tools.Specs(nc.rs.r.AgentID)
	out := make([]beamclaw.ToolSpec, 0, len(all))
	for _, s := range all {
		if opts.Policy(s, nc.rs.r.Autonomy, nc.rs.r.trust()).Action != tool.ActionDeny {
			out = append(out, s)
		}
	}
	return out
}

// CallTool runs one tool for the run, as the model's calls run.
func (nc *nestedCaller) CallTool(ctx context.Context, name string, args json.RawMessage) (string, error) {
	rs := nc.rs
	c := beamclaw.ToolCall{ID: nc.parent + "_" + strconv.FormatInt(nc.n.Add(1), 10), Name: name, Args: args}
	shown := c
	shown.Args = rs.e.opts.Scrub.JSON(args)
	t, v, res, done := rs.resolve(c)
	if !done && v.Action == tool.ActionAsk {
		ok, reason, err := rs.approve(ctx, t.Spec(), shown, v.Reason, func() string { return "appr_" + c.ID })
		if err != nil {
			return "", err
		}
		if !ok {
			res, done = deniedResult(c, reason), true
		}
	}
	if !done {
		res = rs.execute(ctx, t, c, shown, false)
	}
	if res.IsError {
		return "", errors.New(res.Content)
	}
	return res.Content, nil
}
