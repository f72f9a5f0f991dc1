package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// An answer to an approval goes to every node; the one whose live
// session asked it answers, the others stay silent.

const decideSubject = "beamclaw.decide"

// decideWait is how long an answer waits for the node that asked.
const decideWait = 2 * time.Second

// Decision answers an approval somewhere in the cluster: in Session when
// it names one, else in any live session of User.
type Decision struct {
	Session  string            `json:"session,omitempty"`
	User     string            `json:"user,omitempty"`
	Approval string            `json:"approval"`
	Origin   string            `json:"origin"`
	Decision beamclaw.Decision `json:"decision"`
}

// Decide is this node's handler of an answer from another node: nil when
// one of its live sessions took it.
type Decide func(ctx context.Context, d Decision) error

// ErrNoSuchApproval: no node has a live session waiting on the approval.
var ErrNoSuchApproval = errors.New("cluster: no node waits on this approval")

// ServeDecisions answers approvals sent from other nodes with decide
// until ctx ends.
func (n *Node) ServeDecisions(ctx context.Context, decide Decide) error {
	sub, err := n.nc.Subscribe(decideSubject, func(m *nats.Msg) {
		var d Decision
		if json.Unmarshal(m.Data, &d) != nil || m.Reply == "" {
			return
		}
		if decide(ctx, d) == nil {
			_ = m.Respond([]byte("ok"))
		}
	})
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	<-ctx.Done()
	return sub.Unsubscribe()
}

// Decide sends d to every node and returns once the one that asked took
// it; ErrNoSuchApproval when none did.
func (n *Node) Decide(ctx context.Context, d Decision) error {
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, decideWait)
	defer cancel()
	_, err = n.nc.RequestWithContext(ctx, decideSubject, data)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout) {
		return ErrNoSuchApproval
	}
	return err
}
