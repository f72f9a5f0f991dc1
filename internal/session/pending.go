package session

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
)

// Pending is an approval waiting in a live session (approvals exist only
// there).
type Pending struct {
	Session string
	Agent   string
	User    string           // the session's user
	Channel beamclaw.Channel // the channel of the run that asked: where it was asked
	Request beamclaw.ApprovalRequest
	Asked   time.Time
	// Local: asked on the terminal, so the operator may answer it through
	// the admin API (DecideLocal).
	Local bool
}

// lanes are the live sessions now.
func (m *Manager) lanes() []*lane {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*lane, 0, len(m.live))
	for _, l := range m.live {
		out = append(out, l)
	}
	return out
}

// Pending lists the approvals waiting in every live session, the oldest
// first.
func (m *Manager) Pending() []Pending {
	var out []Pending
	for _, l := range m.lanes() {
		l.mu.Lock()
		for _, a := range l.approvals {
			out = append(out, Pending{Session: l.id, Agent: l.rec.AgentID, User: l.rec.UserID, Channel: a.channel,
				Request: a.req, Asked: a.asked, Local: askedLocally(a)})
		}
		l.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b Pending) int {
		return cmp.Or(a.Asked.Compare(b.Asked), cmp.Compare(a.Request.ID, b.Request.ID))
	})
	return out
}

// askedLocally reports whether a was asked on the terminal: the control
// socket's channel, whose person is the machine's operator (any local
// account; whoever holds the socket can speak as any of them). An
// approval asked anywhere else belongs to its person and channel.
func askedLocally(a *approval) bool {
	return a.channel == beamclaw.ChannelTUI && a.origin != ""
}

// DecideLocal answers approval approvalID of session sessionID for the
// operator holding the admin API (the control socket, or the gateway's
// token on /api/v1): as the terminal it was asked on would, so only an
// approval asked on the terminal. One asked on any other channel is
// refused (KindForbidden): it stays its person's, on their channel
// (docs/people.md).
func (m *Manager) DecideLocal(ctx context.Context, sessionID, approvalID string, d beamclaw.Decision) error {
	const op = "session.DecideLocal"
	if approvalID == "" {
		return beamclaw.E(op, beamclaw.KindNotFound, "no such approval", nil)
	}
	l := m.liveLane(sessionID)
	if l == nil { // in a cluster, it may wait on another node
		return m.elsewhere(ctx, op, cluster.OwnerOp{Kind: cluster.OpDecideLocal, Session: sessionID, Approval: approvalID, Decision: d},
			"no such approval")
	}
	l.mu.Lock()
	i := slices.IndexFunc(l.approvals, func(a *approval) bool { return a.id == approvalID })
	var a approval
	if i >= 0 {
		a = *l.approvals[i]
	}
	l.mu.Unlock()
	switch {
	case i < 0:
		return beamclaw.E(op, beamclaw.KindNotFound, "no such approval", nil)
	case !askedLocally(&a):
		return beamclaw.E(op, beamclaw.KindForbidden, fmt.Sprintf("this approval was asked on %s: only the person asked can answer it, there",
			a.channel), nil)
	}
	if _, ok := l.decide(approvalID, a.origin, d); !ok { // answered or timed out meanwhile
		return beamclaw.E(op, beamclaw.KindNotFound, "no such approval", nil)
	}
	return nil
}
