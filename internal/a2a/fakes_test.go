package a2a

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/skill"
)

// fakeSessions stands in for the session manager: every Send is handed to
// the test on sent, which then plays the run on its route.
type fakeSessions struct {
	sent    chan sent
	decides chan string // approval id + "=" + decision, as Decide is called

	mu        sync.Mutex
	n         int
	decisions []string // approval id + "=" + decision
	cancels   []string // run ids
	cancelErr error
}

type sent struct {
	in    beamclaw.Inbound
	runID string
}

func newFakeSessions() *fakeSessions {
	return &fakeSessions{sent: make(chan sent, 16), decides: make(chan string, 16)}
}

func (f *fakeSessions) Send(_ context.Context, in beamclaw.Inbound) (string, error) {
	f.mu.Lock()
	f.n++
	id := "run-" + string(rune('0'+f.n))
	f.mu.Unlock()
	f.sent <- sent{in: in, runID: id}
	return id, nil
}

func (f *fakeSessions) SessionID(in beamclaw.Inbound) string {
	return "session-" + in.UserID + "-" + in.AgentID
}

func (f *fakeSessions) Decide(_ context.Context, _, approvalID, origin string, d beamclaw.Decision) error {
	if !strings.HasPrefix(origin, "a2a:") {
		panic("an approval answered without its origin: " + origin)
	}
	f.mu.Lock()
	f.decisions = append(f.decisions, approvalID+"="+string(d))
	f.mu.Unlock()
	f.decides <- approvalID + "=" + string(d)
	return nil
}

func (f *fakeSessions) Cancel(_ context.Context, _, runID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels = append(f.cancels, runID)
	return f.cancelErr
}

func (f *fakeSessions) decided() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.decisions...)
}

// next waits for the next message sent to a session.
func (f *fakeSessions) next(t *testing.T) sent {
	t.Helper()
	select {
	case s := <-f.sent:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no message reached the sessions")
		return sent{}
	}
}

type fakeAgents []string

func (a fakeAgents) Exists(name string) bool {
	for _, x := range a {
		if x == name {
			return true
		}
	}
	return false
}
func (a fakeAgents) List() []string { return a }
func (a fakeAgents) Skills(string) ([]skill.Skill, error) {
	return []skill.Skill{{Name: "summarize-url", Description: "Summarize a web page."}}, nil
}
