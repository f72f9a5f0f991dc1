package loop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// risky is a high-risk tool that reports the trust it was invoked with.
type risky struct{}

func (risky) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: "risky", Parameters: json.RawMessage(`{"type":"object"}`)},
		MinAutonomy: beamclaw.ReadOnly, Risk: beamclaw.RiskHigh}
}

func (risky) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	return "ran on " + string(inv.Channel) + " with the trust of " + string(inv.Trust) + " at " + string(inv.Autonomy), nil
}

// A run with a Trust channel follows that channel's rules: a scheduled
// run acting for HTTP is remote, so a high-risk tool asks (and with
// nobody to ask, is denied); without one the run's own channel decides,
// and the tool learns the run's trust and autonomy.
func TestRunFollowsItsTrustChannel(t *testing.T) {
	tests := []struct {
		name string
		run  Run
		want string
	}{
		{"acting for http", Run{Channel: beamclaw.ChannelScheduler, Trust: beamclaw.ChannelHTTP, Autonomy: beamclaw.Full, NoApproval: true},
			"denied: tool risky needs approval (tool risky is high risk and this run comes from a remote channel)"},
		{"its own", Run{Channel: beamclaw.ChannelScheduler, Autonomy: beamclaw.Full, NoApproval: true},
			"ran on sched with the trust of sched at full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := tool.New(tool.Options{})
			if err := reg.Register(risky{}); err != nil {
				t.Fatal(err)
			}
			p := &stepProvider{resps: []beamclaw.Message{
				{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{ID: "c1", Name: "risky", Args: json.RawMessage(`{}`)}}},
				{Role: beamclaw.RoleAssistant, Content: "done"},
			}}
			eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return p, "m", nil }, Tools: reg})
			if err != nil {
				t.Fatal(err)
			}
			lane := &fakeLane{}
			r := tt.run
			r.ID, r.SessionID, r.Route, r.Lane = "r1", "s1", &routeLog{}, lane
			r.History = []beamclaw.Message{{Role: beamclaw.RoleUser, Content: "go"}}
			if err := eng.Run(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if got := lane.commits[0][1].Content; !strings.HasPrefix(got, tt.want) {
				t.Errorf("tool result %q, want prefix %q", got, tt.want)
			}
		})
	}
}
