package loop

import (
	"context"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// A run sends the prompt's stable part as System and its part per user
// and turn, with the run's instructions, as Context; TurnStart is where
// the user messages the run answers begin, after the earlier turns.
func TestRunSendsThePromptInItsParts(t *testing.T) {
	p := &recordingProvider{stepProvider: stepProvider{resps: []beamclaw.Message{{Role: beamclaw.RoleAssistant, Content: "ok"}}}}
	eng, err := New(Options{Providers: func(string) (beamclaw.Provider, string, error) { return p, "m", nil },
		Tools: tool.New(tool.Options{}),
		Prompt: func(_ context.Context, agentID, userID, _ string) (string, string, error) {
			return "You are " + agentID + ".\n", "\n# Memory of " + userID + "\n", nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	history := []beamclaw.Message{
		{Role: beamclaw.RoleUser, Content: "one"}, {Role: beamclaw.RoleAssistant, Content: "1"},
		{Role: beamclaw.RoleUser, Content: "two"}, {Role: beamclaw.RoleUser, Content: "and three"},
	}
	err = eng.Run(context.Background(), Run{ID: "r1", SessionID: "s1", AgentID: "ana", UserID: "local:lee", Channel: "tui",
		Autonomy: beamclaw.Full, History: history, Route: &routeLog{}, Lane: &fakeLane{decision: beamclaw.Allow},
		Instructions: "Answer in French."})
	if err != nil {
		t.Fatal(err)
	}
	req := p.reqs[0]
	if req.System != "You are ana.\n" {
		t.Errorf("System %q, want the stable part alone", req.System)
	}
	if req.Context != "# Memory of local:lee\n\nAnswer in French." {
		t.Errorf("Context %q, want the user's part, then the instructions", req.Context)
	}
	if req.TurnStart != 2 {
		t.Errorf("TurnStart %d, want 2 (the run answers two and three)", req.TurnStart)
	}
}
