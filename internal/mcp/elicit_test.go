package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// recordingAsker answers every question with a fixed answer.
type recordingAsker struct {
	mu     sync.Mutex
	asked  []beamclaw.Elicitation
	answer beamclaw.ElicitAnswer
	err    error
}

func (r *recordingAsker) Ask(_ context.Context, e beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, e)
	return r.answer, r.err
}

// TestElicitationReachesTheCallsAsker: a stdio server's elicitation/create
// during a call goes to the Asker of the call's context; an accepted
// answer gets the schema's defaults for the fields left out; a call whose
// context has no Asker declines and says so in the result.
func TestElicitationReachesTheCallsAsker(t *testing.T) {
	m := run(t, Options{Servers: []ServerConfig{fixture("fx")}})
	waitReady(t, m, "fx")
	a := &recordingAsker{answer: beamclaw.ElicitAnswer{Action: "accept", Content: map[string]any{"color": "blue"}}}
	tool, _ := m.Lookup("fx__ask")
	ctx, cancel := context.WithTimeout(beamclaw.WithAsker(context.Background(), a), time.Minute)
	defer cancel()
	got, err := tool.Execute(ctx, beamclaw.Invocation{Args: json.RawMessage(`{}`)})
	if err != nil || got != `answer: accept {"color":"blue","name":"Ada"}` {
		t.Fatalf("ask = %q, %v", got, err)
	}
	if len(a.asked) != 1 || a.asked[0].Source != "mcp:fx" || a.asked[0].Tool != "ask" ||
		!strings.Contains(string(a.asked[0].Schema), `"default":"Ada"`) {
		t.Errorf("asked %+v", a.asked)
	}
	got, err = call(t, m, "fx__ask", `{}`)
	if err != nil || !strings.HasPrefix(got, "answer: decline") || !strings.Contains(got, "nobody can answer") {
		t.Errorf("ask without an Asker = %q, %v", got, err)
	}
}
