package session

import (
	"context"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// maxAttempts: a run whose loop crashed is retried once, then failed.
const maxAttempts = 2

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
	if r == nil {
		l.wakeSettled()
		if l.gen == gen {
			l.active, l.parkedGen = false, gen
		}
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
			ev, answered := l.answered(r)
			switch {
			case answered:
				r.route.Deliver(ev)
				r.markEnded()
			case r.attempts >= maxAttempts:
				r.route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: r.id, SessionID: l.id, Text: msgCrashed})
				r.markEnded()
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

// answered finds the end of r's turn when it was stored before a crash:
// its final answer, or the calls of the client's functions it stopped at.
func (l *lane) answered(r *run) (beamclaw.RunEvent, bool) {
	if len(r.pending) > 0 || r.epoch != l.epoch {
		return beamclaw.RunEvent{}, false
	}
	out := l.history[min(r.start+len(r.msgs), len(l.history)):]
	for _, m := range out {
		if m.Role == beamclaw.RoleAssistant && len(m.ToolCalls) == 0 {
			return beamclaw.RunEvent{Type: beamclaw.EvFinal, RunID: r.id, SessionID: l.id, Text: m.Content}, true
		}
	}
	if open := openCalls(out); len(open) > 0 && len(r.functions) > 0 {
		return beamclaw.RunEvent{Type: beamclaw.EvFinal, RunID: r.id, SessionID: l.id, Calls: open}, true
	}
	return beamclaw.RunEvent{}, false
}

// promote moves r's user message from the pending area (or, held in
// memory, straight) into history.
func (l *lane) promote(r *run) error {
	if r.held {
		return l.promoteHeld(r)
	}
	if len(r.pending) == 0 {
		return nil
	}
	return l.update(func(rec *record) (change, bool) {
		rec.Updated = l.m.clock.Now()
		r.msgs = l.closeOpenCalls(r.msgs)
		c := change{from: rec.NextSeq, msgs: r.msgs, unpend: r.pending}
		rec.NextSeq += uint64(len(r.msgs))
		rec.Messages += len(r.msgs)
		return c, true
	}, func() {
		l.history = append(l.history, r.msgs...)
		r.start, r.epoch, r.pending = len(l.history)-len(r.msgs), l.epoch, nil
	})
}

// promoteHeld appends a held message to history; its write is deferred to
// the run's first write like an idle session's (or done now when the store
// cannot write).
func (l *lane) promoteHeld(r *run) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if err := l.flushLocked(false); err != nil { // an earlier run's message first
		return err
	}
	l.mu.Lock()
	rec := l.rec
	rec.Updated = l.m.clock.Now()
	r.msgs = l.closeOpenCalls(r.msgs)
	c := change{from: rec.NextSeq, msgs: r.msgs, seen: r.heldSeen}
	rec.NextSeq += uint64(len(r.msgs))
	rec.Messages += len(r.msgs)
	c.rec = rec
	l.mu.Unlock()
	if l.m.store.writable() {
		l.deferred = &c
	} else if err := l.m.apply(l, c); err != nil {
		return err
	}
	l.mu.Lock()
	l.rec = rec
	l.history = append(l.history, r.msgs...)
	r.start, r.epoch, r.held = len(l.history)-len(r.msgs), l.epoch, false
	l.mu.Unlock()
	return nil
}

// loopRun is the loop's view of run r: its user is the person the
// session's account belongs to now (a linked account's session resumed
// by its person runs with the person's memory).
func (l *lane) loopRun(r *run) loop.Run {
	n := len(l.history)
	return loop.Run{ID: r.id, SessionID: l.id, UserID: l.m.opts.Person(l.rec.UserID), AgentID: l.rec.AgentID,
		Origin:  usage.OriginOf(r.channel, l.rec.Thread, r.maintain != nil),
		Channel: r.channel, Trust: r.trust, Autonomy: r.autonomy, History: l.history[:n:n], Route: l.routeOf(r),
		Lane: &runLane{l: l, r: r}, NoApproval: r.noAsk, Sampling: r.sampling, Maintain: r.maintain, Functions: r.functions,
		Instructions: r.instructions}
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
	l.endResponse(r, r.route.terminal()) // if it ended without an error of its own
	l.mu.Lock()
	if l.inflight == r {
		l.inflight = nil
	}
	l.mu.Unlock()
	r.markEnded()
}

// routeOf is the route r's loop answers on: a response's stores its
// record before its error reaches the client.
func (l *lane) routeOf(r *run) beamclaw.Route {
	if r.resp != nil {
		return responseRoute{l: l, r: r}
	}
	return r.route
}
