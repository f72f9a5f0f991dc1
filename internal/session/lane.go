package session

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
)

// maxAttempts: a run whose loop crashed is retried once, then failed.
const maxAttempts = 2

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
	origin     string // Inbound.Origin: where its approvals may be answered
	autonomy   beamclaw.Autonomy
	noAsk      bool // nobody can answer approvals on this run's route
	sampling   *beamclaw.Sampling
	transcript *beamclaw.Transcript // the client's copy of a thread (thread.go)
	route      *onceRoute
	msg        beamclaw.Message // the user message
	pending    uint64           // its pending key while not yet in history
	attempts   int
	start      int                // index of msg in history once dispatched
	epoch      int                // the lane's epoch when dispatched (a reset bumps it)
	canceled   bool               // Manager.Cancel was called (l.mu)
	cancel     context.CancelFunc // cancels the run's context while it runs (l.mu)
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
}

// lane is a session's serialization point: history, metadata, the FIFO of
// pending runs, approvals and the "always" allowlist. Its state survives
// loop restarts; its durable part is in the backend.
type lane struct {
	m  *Manager
	id string

	ready   chan struct{} // closed once restored
	loadErr error

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
	gen       int // activations so far
	parkedGen int // the activation whose loop parked last
}

type approval struct {
	id     string
	origin string // the run's Inbound.Origin
	key    string
	ch     chan beamclaw.Decision
	req    beamclaw.ApprovalRequest
}

// The window of remembered message ids: the last seenMax, or those of
// the last seenTTL, whichever holds more.
const (
	seenMax = 1000
	seenTTL = 24 * time.Hour
)

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

// seenRun returns the run of a channel message id already submitted.
func (l *lane) seenRun(msgID string) (string, bool) {
	if msgID == "" {
		return "", false
	}
	e, ok := l.seen[msgID]
	return e.RunID, ok
}

// remember adds a submitted message id to the window, once its change
// is stored.
func (l *lane) remember(e seenID) {
	if l.seen == nil {
		l.seen = make(map[string]seenID)
	}
	l.seen[e.ID] = e
	l.seenOrder = append(l.seenOrder, e)
}

// expiring lists the ids that leave the window when one more is added at
// now; they are deleted in the same change.
func (l *lane) expiring(now time.Time) []string {
	var out []string
	n := len(l.seenOrder) + 1
	for _, e := range l.seenOrder {
		if n <= seenMax && now.Sub(e.At) < seenTTL {
			break
		}
		out = append(out, e.ID)
		n--
	}
	return out
}

// forgetIDs drops ids that left the window (stored already).
func (l *lane) forgetIDs(ids []string) {
	for _, id := range ids {
		delete(l.seen, id)
	}
	l.seenOrder = l.seenOrder[len(ids):]
}

// submit persists the user message of r and queues r. The message goes
// straight into history when the lane is idle, and into the pending area
// otherwise (it joins history when its run starts, so history stays in
// conversation order).
func (l *lane) submit(r *run, msgID string) (dupOf string, err error) {
	now := l.m.clock.Now()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	if prev, ok := l.seenRun(msgID); ok {
		l.mu.Unlock()
		return prev, nil
	}
	var seen *seenID
	var forget []string
	if msgID != "" {
		seen = &seenID{ID: msgID, RunID: r.id, At: now}
		forget = l.expiring(now)
	}
	idle := l.inflight == nil && len(l.queue) == 0
	rec := l.rec
	rec.Updated, rec.Archived = now, time.Time{} // a message makes an archived session active again
	c := change{created: !l.stored, seen: seen, forget: forget}
	var rewrite []beamclaw.Message // a thread's history made to match the client's copy
	if idle && r.transcript != nil {
		hist, marks, same := l.transcriptHistory(r.transcript)
		if !same {
			rewrite = append(hist, r.msg)
			c.reset, c.from, c.msgs = true, rec.NextSeq, rewrite
			rec.NextSeq += uint64(len(rewrite))
			rec.Messages, rec.Marks = len(rewrite), marks
		}
	}
	switch {
	case rewrite != nil:
	case idle:
		c.from, c.msgs = rec.NextSeq, []beamclaw.Message{r.msg}
		rec.NextSeq++
		rec.Messages++
	default:
		rec.NextPending++
		c.pend, c.pendSeq = &r.msg, rec.NextPending
	}
	c.rec = rec
	deferWrite := rewrite == nil && r.ackOnAnswer && l.m.store.writable()
	if deferWrite && !idle { // held in memory until it joins history (promote)
		rec, c.rec = l.rec, l.rec
		r.held, r.heldSeen = true, seen
	}
	l.mu.Unlock()
	switch {
	case r.held:
	case deferWrite:
		l.deferred = &c // written with the run's first write (l.wmu held)
	default:
		if err := l.write(c); err != nil {
			return "", err
		}
	}
	l.mu.Lock()
	l.rec, l.stored, l.last = rec, true, now
	if rewrite != nil {
		l.history = slices.Clip(rewrite)
		l.epoch++ // runs dispatched before see a history that is gone
	}
	switch {
	case idle:
		if rewrite == nil {
			l.history = append(l.history, r.msg)
		}
		r.start, r.epoch = len(l.history)-1, l.epoch
	case !r.held:
		r.pending = c.pendSeq
	}
	l.queue = append(l.queue, r)
	l.forgetIDs(forget)
	if seen != nil {
		l.remember(*seen)
	}
	l.mu.Unlock()
	l.activate()
	return "", nil
}

// next blocks until there is a run to serve. A run still in flight means
// the previous loop ended without finishing it (a crash): it is retried
// once, or answered from history when the answer was already stored, or
// failed with msgCrashed.
//
// With nothing to serve it parks the lane (for activation gen) and
// returns a nil run: the caller's loop ends.
func (l *lane) next(ctx context.Context, gen int) (*run, loop.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, loop.Run{}, err
	}
	r := l.pick(gen)
	if r == nil {
		// Parked. A run given up after crashes left its user message
		// unwritten: write it, as every message that was not answered.
		// When that fails it stays for the session's next write.
		if err := l.flush(); err != nil && beamclaw.KindOf(err) != beamclaw.KindStorage { // the store logs its own failures
			l.m.log.Error("store the message of a run given up", "session_id", l.id, "err", err)
		}
		return nil, loop.Run{}, nil
	}
	if err := l.promote(r); err != nil {
		return nil, loop.Run{}, err
	}
	l.mu.Lock()
	lr := l.loopRun(r)
	l.mu.Unlock()
	return r, lr, nil
}

// pick returns the run to serve now, or parks the lane when there is none.
func (l *lane) pick(gen int) *run {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.pickLocked()
	if r == nil && l.gen == gen {
		l.active, l.parkedGen = false, gen
	}
	return r
}

// pickLocked returns the run to serve now, if any. The caller holds l.mu.
func (l *lane) pickLocked() *run {
	if r := l.inflight; r != nil {
		// A run the loop did not finish: skip it if its route is gone,
		// deliver its stored answer, give up after maxAttempts, or retry.
		l.inflight = nil
		if r.maintain != nil { // maintenance is not retried: the next scan asks again
			r.route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: r.id, SessionID: l.id, Text: msgCrashed})
		} else if !r.route.ended() {
			text, answered := l.answered(r)
			switch {
			case answered:
				r.route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, RunID: r.id, SessionID: l.id, Text: text})
			case r.attempts >= maxAttempts:
				r.route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: r.id, SessionID: l.id, Text: msgCrashed})
			default:
				r.attempts++
				l.inflight = r
				return r
			}
		}
	}
	if len(l.queue) == 0 {
		return nil
	}
	r := l.queue[0]
	l.queue[0] = nil
	l.queue = l.queue[1:]
	if len(l.queue) == 0 {
		l.queue = nil
	}
	r.attempts = 1
	l.inflight = r
	return r
}

// answered finds the final answer of r when it was stored before a crash.
func (l *lane) answered(r *run) (string, bool) {
	if r.pending != 0 || r.epoch != l.epoch {
		return "", false
	}
	for i := r.start + 1; i < len(l.history); i++ {
		if m := l.history[i]; m.Role == beamclaw.RoleAssistant && len(m.ToolCalls) == 0 {
			return m.Content, true
		}
	}
	return "", false
}

// promote moves r's user message from the pending area (or, held in
// memory, straight) into history.
func (l *lane) promote(r *run) error {
	if r.held {
		return l.promoteHeld(r)
	}
	if r.pending == 0 {
		return nil
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	rec := l.rec
	rec.Updated = l.m.clock.Now()
	c := change{from: rec.NextSeq, msgs: []beamclaw.Message{r.msg}, unpend: []uint64{r.pending}}
	rec.NextSeq++
	rec.Messages++
	c.rec = rec
	l.mu.Unlock()
	if err := l.write(c); err != nil {
		return err
	}
	l.mu.Lock()
	l.rec = rec
	l.history = append(l.history, r.msg)
	r.start, r.epoch, r.pending = len(l.history)-1, l.epoch, 0
	l.mu.Unlock()
	return nil
}

// promoteHeld appends a held message to history; its write is deferred to
// the run's first write like an idle session's (or done now when the store
// cannot write).
func (l *lane) promoteHeld(r *run) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if err := l.flushLocked(); err != nil { // an earlier run's message first
		return err
	}
	l.mu.Lock()
	rec := l.rec
	rec.Updated = l.m.clock.Now()
	c := change{from: rec.NextSeq, msgs: []beamclaw.Message{r.msg}, seen: r.heldSeen}
	rec.NextSeq++
	rec.Messages++
	c.rec = rec
	l.mu.Unlock()
	if l.m.store.writable() {
		l.deferred = &c
	} else if err := l.m.store.apply(l.id, c); err != nil {
		return err
	}
	l.mu.Lock()
	l.rec = rec
	l.history = append(l.history, r.msg)
	r.start, r.epoch, r.held = len(l.history)-1, l.epoch, false
	l.mu.Unlock()
	return nil
}

func (l *lane) loopRun(r *run) loop.Run {
	n := len(l.history)
	return loop.Run{ID: r.id, SessionID: l.id, UserID: l.rec.UserID, AgentID: l.rec.AgentID,
		Channel: r.channel, Autonomy: r.autonomy, History: l.history[:n:n], Route: r.route,
		Lane: &runLane{l: l, r: r}, NoApproval: r.noAsk, Sampling: r.sampling, Maintain: r.maintain}
}

// finish records that the loop completed r. A user message still
// deferred (the run failed before writing anything) is written now, as
// every other message is.
func (l *lane) finish(r *run) {
	if err := l.flush(); err != nil && beamclaw.KindOf(err) != beamclaw.KindStorage { // the store logs its own failures, once
		l.m.log.Error("store the message of a failed run", "session_id", l.id, "run_id", r.id, "err", err)
	}
	if !r.route.ended() {
		r.route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: r.id, SessionID: l.id, Text: msgCrashed})
	}
	l.mu.Lock()
	if l.inflight == r {
		l.inflight = nil
	}
	l.mu.Unlock()
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
	l.mu.Unlock()
	for _, r := range runs {
		r.route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: r.id, SessionID: l.id, Text: msgStopped})
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

// answerResend answers a message whose id the session already holds,
// without storing or running it again: a run still queued or in flight
// streams its answer to the resend's route too; a stored answer is
// delivered at once; a message stored but never answered (the daemon
// stopped mid-answer) is answered now, once, when it is still the newest
// of the conversation.
func (l *lane) answerResend(prevRunID string, resend *run) {
	route := resend.route
	l.mu.Lock()
	for _, r := range append([]*run{l.inflight}, l.queue...) {
		if r != nil && r.id == prevRunID && r.route.attach(route) {
			l.mu.Unlock()
			return
		}
	}
	idx := slices.IndexFunc(l.history, func(m beamclaw.Message) bool {
		return m.Role == beamclaw.RoleUser && m.ID == prevRunID
	})
	if idx < 0 {
		l.mu.Unlock()
		route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: prevRunID, SessionID: l.id, Text: msgResendGone})
		return
	}
	for _, m := range l.history[idx+1:] {
		if m.Role == beamclaw.RoleAssistant && len(m.ToolCalls) == 0 {
			l.mu.Unlock()
			route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, RunID: prevRunID, SessionID: l.id, Text: m.Content})
			return
		}
	}
	if idx != len(l.history)-1 {
		l.mu.Unlock()
		route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: prevRunID, SessionID: l.id, Text: msgStopped})
		return
	}
	// Stored, unanswered and newest: answer it now, without storing it twice.
	resend.id, resend.msg = prevRunID, l.history[idx]
	resend.start, resend.epoch, resend.pending = idx, l.epoch, 0
	l.queue = append(l.queue, resend)
	l.mu.Unlock()
	l.activate()
}
