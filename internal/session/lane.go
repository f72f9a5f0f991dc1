package session

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// Texts delivered when a run cannot be answered.
const (
	msgCrashed = "the agent crashed while answering; please retry"
	msgStopped = "the session stopped before answering; please retry"
	// msgResendGone answers a resend of a message no longer in history
	// (the conversation was reset or compacted since).
	msgResendGone = "this message was already received; its answer is no longer in the conversation"
)

// run is one queued or running request of a session.
type run struct {
	id         string
	channel    beamclaw.Channel
	trust      beamclaw.Channel // Inbound.Trust: whose rules the run follows ("" = channel)
	origin     string           // Inbound.Origin: where its approvals may be answered
	autonomy   beamclaw.Autonomy
	noAsk      bool // nobody can answer approvals on this run's route
	sampling   *beamclaw.Sampling
	transcript *beamclaw.Transcript // the client's copy of a thread (thread.go)
	route      *onceRoute
	// msgs are the run's input: the user message, or the client's results
	// of the function calls the session's last run ended with.
	msgs     []beamclaw.Message
	pending  []uint64 // their pending keys while not yet in history
	attempts int
	start    int                // index of msgs[0] in history once dispatched
	epoch    int                // the lane's epoch when dispatched (a reset bumps it)
	canceled bool               // Manager.Cancel was called (l.mu)
	cancel   context.CancelFunc // cancels the run's context while it runs (l.mu)
	// ackOnAnswer: the channel acknowledges r only with its answer, so its
	// user message is stored with the run's first write (Inbound.AckOnAnswer).
	ackOnAnswer bool
	// maintain makes r session maintenance (no message of its own);
	// compactedTo is the history's length its compaction left (0: none).
	maintain    *loop.Maintenance
	compactedTo int
	// held: r's message waits in memory only (an ackOnAnswer run queued
	// behind another); promote defers it to the run's first write, with
	// heldSeen, the message id it is remembered under.
	held     bool
	heldSeen *seenID
	// digest is the Inbound.MessageDigest of r's message id.
	digest string
	// spent holds the model calls r made since its last write (the
	// run's goroutine only): the next write takes them to the ledger.
	spent []beamclaw.LLMCall
	used  beamclaw.Usage // every call's usage, for its response record
	// functions are the client's own tools offered with r
	// (Inbound.Functions); resp is the Responses API response r answers
	// (nil: none), respDone once its record is written.
	functions    []beamclaw.ToolDef
	instructions string
	resp         *beamclaw.ResponseRef
	respDone     bool
	// expect is the history's next key r continues from (a response
	// continued in place): another turn appended since is a conflict.
	expect  uint64
	ended   chan struct{} // closed when r ended (markEnded)
	endOnce sync.Once
}

// markEnded closes r.ended: r is over, however it ended.
func (r *run) markEnded() {
	r.endOnce.Do(func() {
		if r.ended != nil {
			close(r.ended)
		}
	})
}

// lane is a session's serialization point: history, metadata, the FIFO of
// pending runs, approvals and the "always" allowlist. Its state survives
// loop restarts; its durable part is in the backend.
type lane struct {
	m  *Manager
	id string

	ready   chan struct{} // closed once restored
	loadErr error
	claim   *claim // this node's hold on the session (cluster mode; set once revived)

	wmu sync.Mutex // serialises writes to the backend, in order

	mu        sync.Mutex
	rec       record
	stored    bool // rec exists in the backend
	history   []beamclaw.Message
	queue     []*run
	inflight  *run
	approvals []*approval
	allow     map[string]struct{}
	sends     int  // Send calls between acquire and release
	closed    bool // no longer in the registry; a new lane takes over
	last      time.Time
	epoch     int
	seen      map[string]seenID // channel message ids of the window, stored with the session
	seenOrder []seenID          // the same, oldest first
	ends      map[string]int    // a thread's latest runs: run id -> history length at its end
	// deferred is the unwritten user message of a run whose channel
	// acknowledges only with the answer: the run's first Commit writes it
	// in the same transaction, any other write writes it first, and the
	// run's end writes it when nothing else did (l.wmu).
	deferred *change

	// A lane with runs to serve is active: a supervisor runs its loop.
	// With nothing to do the loop parks and the supervisor ends, so a
	// session waiting for its next message holds no goroutine at all.
	active    bool
	gen       int           // activations so far
	parkedGen int           // the activation whose loop parked last
	settled   chan struct{} // closed when the lane next has no run (settle)
}

type approval struct {
	id      string
	origin  string           // the run's Inbound.Origin
	channel beamclaw.Channel // the run's channel: where it was asked
	asked   time.Time
	key     string
	ch      chan beamclaw.Decision
	req     beamclaw.ApprovalRequest
}

func newLane(m *Manager, id string) *lane {
	return &lane{m: m, id: id, ready: make(chan struct{})}
}

// activate starts the lane's supervisor unless one runs; a queued run
// calls it after the run is in the queue.
func (l *lane) activate() {
	l.mu.Lock()
	if l.active || l.closed {
		l.mu.Unlock()
		return
	}
	l.active = true
	l.gen++
	gen := l.gen
	l.mu.Unlock()
	l.m.sup.Add(&sessionService{l: l, gen: gen})
}

// stop fails every run still waiting; the lane is gone.
func (l *lane) stop() {
	l.mu.Lock()
	l.closed = true
	runs := l.queue
	if l.inflight != nil {
		runs = append([]*run{l.inflight}, runs...)
	}
	l.inflight, l.queue = nil, nil
	l.wakeSettled()
	l.mu.Unlock()
	for _, r := range runs {
		r.route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: r.id, SessionID: l.id, Text: msgStopped})
		r.markEnded()
	}
}

// idle reports whether the lane has nothing to do and nobody using it.
func (l *lane) idle() bool {
	return l.sends == 0 && l.inflight == nil && len(l.queue) == 0 && len(l.approvals) == 0
}

// snapshot copies the history.
func (l *lane) snapshot() []beamclaw.Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.history)
}

// settle waits until no run of the lane is queued or in flight (the loop
// parked), or ctx ends.
func (l *lane) settle(ctx context.Context) error {
	for {
		l.mu.Lock()
		if l.inflight == nil && len(l.queue) == 0 {
			l.mu.Unlock()
			return nil
		}
		if l.settled == nil {
			l.settled = make(chan struct{})
		}
		ch := l.settled
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wakeSettled wakes the callers of settle. The caller holds l.mu.
func (l *lane) wakeSettled() {
	if l.settled != nil {
		close(l.settled)
		l.settled = nil
	}
}
