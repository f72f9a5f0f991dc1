package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// A message for a session another node owns is forwarded to that node
// over NATS: the request carries the message, its reply subject gets the
// answer of Send (the run's id or the error), then the run's events as
// they come, live, and a beat every forwardBeat while the run lasts.

// forwardBeat is how often the owner says a forwarded run still runs;
// forwardSilence without a word from it ends the run with an error.
const (
	forwardBeat    = time.Second
	forwardSilence = 5 * time.Second
)

// ErrNodeGone is returned by Forward when nothing answers for the node:
// it is down; its sessions move once their leases expire.
var ErrNodeGone = errors.New("cluster: the node that owns the session is gone")

// OwnedElsewhereError: another node owns the session now (a forwarded
// message's owner may have lost it since); its messages go there.
type OwnedElsewhereError struct {
	Session string
	Node    string
}

func (e *OwnedElsewhereError) Error() string {
	return fmt.Sprintf("session %s is owned by node %s", e.Session, e.Node)
}

func sendSubject(node string) string { return "beamclaw.send." + node }

// forwardMsg is one message of a forwarded run's reply stream.
type forwardMsg struct {
	Start bool               `json:"start,omitempty"` // the answer of Send
	RunID string             `json:"run_id,omitempty"`
	Err   *forwardErr        `json:"error,omitempty"`
	Event *beamclaw.RunEvent `json:"event,omitempty"`
}

type forwardErr struct {
	Kind     beamclaw.Kind `json:"kind"`
	Msg      string        `json:"msg"`
	Sentinel string        `json:"sentinel,omitempty"`
	Owner    string        `json:"owner,omitempty"` // an OwnedElsewhereError's node
}

// sentinels are the errors of Send a caller tells apart with errors.Is.
var sentinels = map[string]error{"open_calls": beamclaw.ErrOpenCalls, "message_reused": beamclaw.ErrMessageReused}

func wireErr(err error) *forwardErr {
	w := &forwardErr{Kind: beamclaw.KindOf(err), Msg: err.Error()}
	var be *beamclaw.Error
	if errors.As(err, &be) && be.Msg != "" {
		w.Msg = be.Msg
	}
	for name, s := range sentinels {
		if errors.Is(err, s) {
			w.Sentinel = name
		}
	}
	if o, ok := errors.AsType[*OwnedElsewhereError](err); ok {
		w.Owner = o.Node
	}
	return w
}

func (w *forwardErr) err() error {
	if w.Owner != "" {
		return &OwnedElsewhereError{Node: w.Owner}
	}
	if s := sentinels[w.Sentinel]; s != nil {
		return beamclaw.E("cluster.Forward", w.Kind, w.Msg, s)
	}
	return beamclaw.E("cluster.Forward", w.Kind, w.Msg, nil)
}

// Send is this node's handler of forwarded messages (session.Manager.Send
// on a context marked as forwarded).
type Send func(ctx context.Context, in beamclaw.Inbound) (string, error)

// ServeForwarded answers messages forwarded to this node with send until
// ctx ends.
func (n *Node) ServeForwarded(ctx context.Context, send Send) error {
	sub, err := n.nc.Subscribe(sendSubject(n.cfg.NodeID), func(m *nats.Msg) {
		go n.serveOne(ctx, send, m)
	})
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	<-ctx.Done()
	return sub.Unsubscribe()
}

func (n *Node) serveOne(ctx context.Context, send Send, m *nats.Msg) {
	var in beamclaw.Inbound
	if err := json.Unmarshal(m.Data, &in); err != nil || m.Reply == "" {
		return
	}
	r := &replyRoute{nc: n.nc, subject: m.Reply, done: make(chan struct{})}
	in.Route = r
	// Beats from the start: Send may wait long (behind a busy run) before
	// it answers, and a silent owner looks dead to the requester.
	stop := make(chan struct{})
	beats := make(chan struct{})
	go func() {
		defer close(beats)
		t := time.NewTicker(forwardBeat)
		defer t.Stop()
		for {
			select {
			case <-r.done:
				return
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				r.publish(forwardMsg{})
			}
		}
	}()
	runID, err := send(ctx, in)
	start := forwardMsg{Start: true, RunID: runID}
	if err != nil {
		start.Err = wireErr(err)
		close(stop)
	}
	r.started(start) // then the events Send's run delivered meanwhile
	<-beats
}

// replyRoute publishes a forwarded run's events to its requester, in
// order, after the answer of Send: events delivered before it (a run that
// ended inside Send: a /yes, a resend's stored answer) wait for it.
type replyRoute struct {
	nc      *nats.Conn
	subject string
	mu      sync.Mutex
	done    chan struct{}
	ended   bool
	start   bool                // the answer of Send went out
	held    []beamclaw.RunEvent // delivered before it
}

func (r *replyRoute) Deliver(ev beamclaw.RunEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.start {
		r.held = append(r.held, ev)
	} else {
		r.publishLocked(forwardMsg{Event: &ev})
	}
	if ev.Terminal() && !r.ended {
		r.ended = true
		close(r.done)
	}
}

// started publishes the answer of Send, then the events held for it.
func (r *replyRoute) started(m forwardMsg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.publishLocked(m)
	r.start = true
	for i := range r.held {
		r.publishLocked(forwardMsg{Event: &r.held[i]})
	}
	r.held = nil
}

func (r *replyRoute) publish(m forwardMsg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.publishLocked(m)
}

func (r *replyRoute) publishLocked(m forwardMsg) {
	b, _ := json.Marshal(m)
	_ = r.nc.Publish(r.subject, b)
}

// Forward hands in to node and relays its run's events to in.Route. It
// returns what Send returned there; if the node falls silent before the
// run ends, the route gets an error event.
func (n *Node) Forward(ctx context.Context, node string, in beamclaw.Inbound) (string, error) {
	route := in.Route
	in.Route = nil
	data, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("cluster: forward: %w", err)
	}
	inbox := nats.NewInbox()
	ch := make(chan *nats.Msg, 4096) // a streamed answer's chunks; a relay keeps up with one route
	sub, err := n.nc.ChanSubscribe(inbox, ch)
	if err != nil {
		return "", fmt.Errorf("cluster: forward: %w", err)
	}
	if err := n.nc.PublishRequest(sendSubject(node), inbox, data); err != nil {
		_ = sub.Unsubscribe()
		return "", fmt.Errorf("cluster: forward: %w", err)
	}
	start, err := n.awaitStart(ctx, ch, node)
	if err != nil {
		_ = sub.Unsubscribe()
		return "", err
	}
	n.stats.Forwarded.Add(1)
	go relay(sub, ch, route, start.RunID)
	return start.RunID, nil
}

func (n *Node) awaitStart(ctx context.Context, ch chan *nats.Msg, node string) (forwardMsg, error) {
	t := time.NewTimer(forwardSilence)
	defer t.Stop()
	for {
		select {
		case m := <-ch:
			if m.Header.Get("Status") == "503" { // no responders: the node is down
				return forwardMsg{}, fmt.Errorf("%w (%s)", ErrNodeGone, node)
			}
			var fm forwardMsg
			if json.Unmarshal(m.Data, &fm) != nil || !fm.Start {
				t.Reset(forwardSilence) // a beat: the owner is at it
				continue
			}
			if fm.Err != nil {
				return fm, fm.Err.err()
			}
			return fm, nil
		case <-t.C:
			return forwardMsg{}, beamclaw.E("cluster.Forward", beamclaw.KindUnavailable,
				"the node that owns this conversation ("+node+") did not answer", nil)
		case <-ctx.Done():
			return forwardMsg{}, ctx.Err()
		}
	}
}

// relay delivers a forwarded run's events until its terminal one, or an
// error event when its node falls silent.
func relay(sub *nats.Subscription, ch chan *nats.Msg, route beamclaw.Route, runID string) {
	defer func() { _ = sub.Unsubscribe() }()
	t := time.NewTimer(forwardSilence)
	defer t.Stop()
	for {
		select {
		case m := <-ch:
			var fm forwardMsg
			if json.Unmarshal(m.Data, &fm) != nil {
				continue
			}
			t.Reset(forwardSilence)
			if fm.Event == nil {
				continue // a beat
			}
			if route != nil {
				route.Deliver(*fm.Event)
			}
			if fm.Event.Terminal() {
				return
			}
		case <-t.C:
			if route != nil {
				route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: runID, Kind: beamclaw.KindUnavailable,
					Text: "The node answering this conversation went away before the answer was complete; send the message again."})
			}
			return
		}
	}
}
