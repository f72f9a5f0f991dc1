package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// An operation on a live session (an approval's answer, a cancel, ...)
// goes to every node; the one where the session lives does it and says
// so, the others stay silent. So does a scheduled answer for a person's
// open connections, which may be on any node.

const ownerOpSubject = "beamclaw.owner"

// ownerOpWait is how long an operation waits for the node that has the
// session.
const ownerOpWait = 2 * time.Second

// The kinds of OwnerOp.
const (
	OpDecide         = ""                // answer an approval (Session, or any live session of User)
	OpDecideLocal    = "decide_local"    // the operator answers a terminal's approval (Session, Approval)
	OpCancel         = "cancel"          // cancel run Run of Session
	OpCancelResponse = "cancel_response" // cancel the run answering Response of User
	OpMarkTurn       = "mark_turn"       // mark run Run of Session with the client's Key
	OpNotify         = "notify"          // a scheduled answer (Text of Job, Agent) for User's connections of kind Channel
	OpDelete         = "delete"          // delete Session, live on its owner
)

// OwnerOp is an operation on a live session somewhere in the cluster.
type OwnerOp struct {
	Kind     string            `json:"kind,omitempty"`
	Session  string            `json:"session,omitempty"`
	User     string            `json:"user,omitempty"`
	Approval string            `json:"approval,omitempty"`
	Origin   string            `json:"origin,omitempty"`
	Decision beamclaw.Decision `json:"decision,omitempty"`
	Run      string            `json:"run,omitempty"`
	Response string            `json:"response,omitempty"`
	Key      string            `json:"key,omitempty"`
	Agent    string            `json:"agent,omitempty"`
	Job      string            `json:"job,omitempty"`
	Text     string            `json:"text,omitempty"`
	Channel  string            `json:"channel,omitempty"`
}

// OwnerOpHandler is this node's handler of an operation from another
// node: nil when one of its live sessions took it.
type OwnerOpHandler func(ctx context.Context, op OwnerOp) error

// ErrNotLiveAnywhere: no node has the live session, run or approval an
// operation names.
var ErrNotLiveAnywhere = errors.New("cluster: no node has it live")

// RefusedError is the answer of the node that has the live session and
// refuses the operation (a delete while it answers): the asking node
// tells its client why.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

const refusedPrefix = "refused:"

// ServeOwnerOps does the operations other nodes send, with handle, until
// ctx ends. A handler's *RefusedError goes back to the asking node; any
// other error leaves the question to the node that has the session.
func (n *Node) ServeOwnerOps(ctx context.Context, handle OwnerOpHandler) error {
	return n.Answer(ctx, ownerOpSubject, func(ctx context.Context, data []byte) ([]byte, bool) {
		var op OwnerOp
		if json.Unmarshal(data, &op) != nil {
			return nil, false
		}
		err := handle(ctx, op)
		if refused, ok := errors.AsType[*RefusedError](err); ok {
			return []byte(refusedPrefix + refused.Msg), true
		}
		return []byte("ok"), err == nil
	})
}

// AskOwner sends op to every node and returns once the one with the live
// session did it; ErrNotLiveAnywhere when none did, a *RefusedError when
// it refused.
func (n *Node) AskOwner(ctx context.Context, op OwnerOp) error {
	data, err := json.Marshal(op)
	if err != nil {
		return err
	}
	answer, err := n.Ask(ctx, ownerOpSubject, data)
	if msg, ok := bytes.CutPrefix(answer, []byte(refusedPrefix)); ok && err == nil {
		return &RefusedError{Msg: string(msg)}
	}
	return err
}

// Answer answers the questions other nodes Ask on subject with fn (ok
// false: this node has no answer, and stays silent) until ctx ends. Each
// question gets ownerOpWait, in a goroutine of its own (a cancel waits
// for its run's end: not on the subscription).
func (n *Node) Answer(ctx context.Context, subject string, fn func(ctx context.Context, data []byte) (answer []byte, ok bool)) error {
	sub, err := n.nc.Subscribe(subject, func(m *nats.Msg) {
		if m.Reply == "" {
			return
		}
		go func() {
			c, cancel := context.WithTimeout(ctx, ownerOpWait)
			defer cancel()
			if answer, ok := fn(c, m.Data); ok {
				_ = m.Respond(answer)
			}
		}()
	})
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	<-ctx.Done()
	return sub.Unsubscribe()
}

// Ask sends data on subject to every node and returns the first answer;
// ErrNotLiveAnywhere when none answered within ownerOpWait.
func (n *Node) Ask(ctx context.Context, subject string, data []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, ownerOpWait+500*time.Millisecond)
	defer cancel()
	m, err := n.nc.RequestWithContext(ctx, subject, data)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout) {
		return nil, ErrNotLiveAnywhere
	}
	if err != nil {
		return nil, err
	}
	return m.Data, nil
}
