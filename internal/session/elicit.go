package session

import (
	"context"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// elicitations are the questions tools of running runs have put to their
// users (MCP elicitation), waiting for an answer, by id.
type elicitations struct {
	mu      sync.Mutex
	pending map[string]*pendingElicit
}

type pendingElicit struct {
	user string
	ch   chan beamclaw.ElicitAnswer // one slot: the first answer wins
}

func (e *elicitations) add(id string, p *pendingElicit) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		e.pending = map[string]*pendingElicit{}
	}
	e.pending[id] = p
}

func (e *elicitations) remove(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pending, id)
}

// Ask waits for the answer to a question a tool of the run asks: from
// Manager.Answer, or the approval timeout (cancel, loop.ErrApprovalTimeout).
func (rl *runLane) Ask(ctx context.Context, e beamclaw.Elicitation) (beamclaw.ElicitAnswer, error) {
	m := rl.l.m
	p := &pendingElicit{user: rl.l.user(), ch: make(chan beamclaw.ElicitAnswer, 1)}
	m.elicits.add(e.ID, p)
	defer m.elicits.remove(e.ID)
	select {
	case a := <-p.ch:
		return a, nil
	case <-m.clock.After(m.opts.ApprovalTimeout):
		return beamclaw.ElicitAnswer{Action: beamclaw.ElicitCancel}, loop.ErrApprovalTimeout
	case <-ctx.Done():
		return beamclaw.ElicitAnswer{Action: beamclaw.ElicitCancel}, ctx.Err()
	}
}

// Answer answers the question id that a tool put to userID. Only that
// user's questions are found, so nobody answers another's by guessing an
// id; the edge checks that the answer comes from the route the question
// was shown on.
func (m *Manager) Answer(_ context.Context, userID, id string, a beamclaw.ElicitAnswer) error {
	const op = "session.Answer"
	switch a.Action {
	case beamclaw.ElicitAccept, beamclaw.ElicitDecline, beamclaw.ElicitCancel:
	default:
		return beamclaw.E(op, beamclaw.KindInvalid, "the action must be accept, decline or cancel", nil)
	}
	m.elicits.mu.Lock()
	p, ok := m.elicits.pending[id]
	if ok && p.user == userID {
		delete(m.elicits.pending, id)
	}
	m.elicits.mu.Unlock()
	if !ok || p.user != userID {
		return beamclaw.E(op, beamclaw.KindNotFound, "no such question is waiting for an answer", nil)
	}
	p.ch <- a
	return nil
}
