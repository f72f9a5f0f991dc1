package tool_test

import (
	"fmt"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// TestDecide walks every cell: 3 autonomy levels × 3 minimums × approval
// yes/no × 3 risks × local/remote × remoteHighRisk approve/deny.
func TestDecide(t *testing.T) {
	levels := []beamclaw.Autonomy{beamclaw.ReadOnly, beamclaw.Supervised, beamclaw.Full}
	risks := []beamclaw.Risk{beamclaw.RiskLow, beamclaw.RiskMedium, beamclaw.RiskHigh}
	for _, auto := range levels {
		for _, minA := range levels {
			for _, approval := range []bool{false, true} {
				for _, risk := range risks {
					for _, remote := range []bool{false, true} {
						for _, rhr := range []string{tool.RemoteHighRiskApprove, tool.RemoteHighRiskDeny} {
							spec := beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "t"}, RequiresApproval: approval, MinAutonomy: minA, Risk: risk}
							want := expectedAction(auto, minA, approval, risk, remote, rhr)
							name := fmt.Sprintf("%s/min=%s/approval=%v/%s/remote=%v/%s", auto, minA, approval, risk, remote, rhr)
							t.Run(name, func(t *testing.T) {
								v := tool.Decide(spec, auto, remote, rhr)
								if v.Action != want {
									t.Errorf("Decide = %v (%s), want %v", v.Action, v.Reason, want)
								}
								if v.Action != tool.ActionRun && v.Reason == "" {
									t.Error("no reason given for ask/deny")
								}
							})
						}
					}
				}
			}
		}
	}
}

// expectedAction restates the rules as a plain decision table.
func expectedAction(auto, minA beamclaw.Autonomy, approval bool, risk beamclaw.Risk, remote bool, rhr string) tool.Action {
	rank := map[beamclaw.Autonomy]int{beamclaw.ReadOnly: 0, beamclaw.Supervised: 1, beamclaw.Full: 2}
	switch {
	case rank[auto] < rank[minA]:
		return tool.ActionDeny
	case auto == beamclaw.ReadOnly && approval:
		return tool.ActionDeny
	case remote && risk == beamclaw.RiskHigh && auto == beamclaw.ReadOnly:
		return tool.ActionDeny
	case remote && risk == beamclaw.RiskHigh && rhr == tool.RemoteHighRiskDeny:
		return tool.ActionDeny
	case remote && risk == beamclaw.RiskHigh:
		return tool.ActionAsk
	case auto == beamclaw.Full:
		return tool.ActionRun
	case auto == beamclaw.Supervised && approval:
		return tool.ActionAsk
	}
	return tool.ActionRun
}

func TestDecideNamedCases(t *testing.T) {
	bash := beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "bash"}, RequiresApproval: true, MinAutonomy: beamclaw.Supervised, Risk: beamclaw.RiskHigh}
	readFile := beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "read_file"}, MinAutonomy: beamclaw.ReadOnly, Risk: beamclaw.RiskLow}
	tests := []struct {
		name   string
		spec   beamclaw.ToolSpec
		auto   beamclaw.Autonomy
		remote bool
		rhr    string
		want   tool.Action
	}{
		{"bash in the TUI at full runs", bash, beamclaw.Full, false, "", tool.ActionRun},
		{"bash over Telegram at full asks by default", bash, beamclaw.Full, true, "", tool.ActionAsk},
		{"bash over Telegram denied by config", bash, beamclaw.Full, true, "deny", tool.ActionDeny},
		{"unknown remote setting fails closed", bash, beamclaw.Full, true, "sometimes", tool.ActionDeny},
		{"bash supervised asks", bash, beamclaw.Supervised, false, "", tool.ActionAsk},
		{"bash read_only denied", bash, beamclaw.ReadOnly, false, "", tool.ActionDeny},
		{"read_file read_only runs", readFile, beamclaw.ReadOnly, true, "deny", tool.ActionRun},
		{"unset autonomy is least trusted", bash, "", false, "", tool.ActionDeny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tool.Decide(tc.spec, tc.auto, tc.remote, tc.rhr); got.Action != tc.want {
				t.Errorf("Decide = %v (%s), want %v", got.Action, got.Reason, tc.want)
			}
		})
	}
}
