package tool

import (
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Action is what the loop must do with a tool call.
type Action uint8

// Actions of a Verdict.
const (
	ActionRun  Action = iota // run without asking
	ActionAsk                // ask the user (or use a matching "always" approval)
	ActionDeny               // refuse; the Reason goes back to the model
)

func (a Action) String() string {
	switch a {
	case ActionRun:
		return "run"
	case ActionAsk:
		return "ask"
	}
	return "deny"
}

// Verdict is Decide's answer: an Action and, for Ask and Deny, why.
type Verdict struct {
	Action Action
	Reason string
}

// Values of the remoteHighRisk argument of Decide
// (tools.remote_high_risk in config).
const (
	RemoteHighRiskApprove = "approve" // ask before every high-risk call
	RemoteHighRiskDeny    = "deny"    // refuse high-risk tools outright
)

// Decide applies the tool policy, in this order:
//
//  1. autonomy below spec.MinAutonomy: Deny;
//  2. read_only and the tool needs approval: Deny;
//  3. a remote channel and a RiskHigh tool: Ask when remoteHighRisk is
//     "approve" (or empty, the default), Deny when it is "deny" or any
//     other value (fail closed) — at supervised and full alike; at
//     read_only (which never asks) it is Deny;
//  4. full: Run;
//  5. supervised and the tool needs approval: Ask;
//  6. otherwise: Run.
func Decide(spec beamclaw.ToolSpec, autonomy beamclaw.Autonomy, remote bool, remoteHighRisk string) Verdict {
	name := spec.Def.Name
	if !autonomy.AtLeast(spec.MinAutonomy) {
		return Verdict{ActionDeny, fmt.Sprintf("tool %s needs autonomy %s or higher; this agent runs at %s",
			name, spec.MinAutonomy, autonomyName(autonomy))}
	}
	if autonomy.Rank() == 0 && spec.RequiresApproval {
		return Verdict{ActionDeny, fmt.Sprintf("tool %s needs approval, which read_only autonomy never grants", name)}
	}
	if remote && spec.Risk == beamclaw.RiskHigh {
		switch {
		case autonomy.Rank() == 0:
			return Verdict{ActionDeny, fmt.Sprintf("tool %s is high risk on a remote channel and needs approval, which read_only autonomy never grants", name)}
		case remoteHighRisk == RemoteHighRiskApprove || remoteHighRisk == "":
			return Verdict{ActionAsk, fmt.Sprintf("tool %s is high risk and this run comes from a remote channel", name)}
		default:
			return Verdict{ActionDeny, fmt.Sprintf("tool %s is high risk and is disabled on remote channels", name)}
		}
	}
	if autonomy == beamclaw.Full {
		return Verdict{Action: ActionRun}
	}
	if spec.RequiresApproval {
		return Verdict{ActionAsk, fmt.Sprintf("tool %s requires approval at %s autonomy", name, autonomy)}
	}
	return Verdict{Action: ActionRun}
}

func autonomyName(a beamclaw.Autonomy) string {
	if a == "" {
		return "an unset level"
	}
	return string(a)
}
