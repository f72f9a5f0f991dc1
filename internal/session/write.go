package session

import (
	"context"
	"errors"
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// runLane is the loop.Lane of one attempt of a run.
type runLane struct {
	l    *lane
	r    *run
	kept []loop.Output // for the next Commit (Keep)
}

var _ loop.Lane = (*runLane)(nil)

// Commit appends the run's messages to history and persists them. After
// a reset, messages of a run that started before it are dropped.
func (rl *runLane) Commit(_ context.Context, msgs []beamclaw.Message) error {
	l := rl.l
	l.wmu.Lock()
	defer l.wmu.Unlock()
	kept := rl.kept
	rl.kept = nil // written now or never: their tool messages are
	l.mu.Lock()
	if rl.r.epoch != l.epoch {
		l.mu.Unlock()
		return nil
	}
	rec := l.rec
	rec.Updated = l.m.clock.Now()
	c := change{from: rec.NextSeq, msgs: msgs, outputs: kept}
	rec.NextSeq += uint64(len(msgs))
	rec.NextOutput += uint64(len(kept))
	rec.Messages += len(msgs)
	c.rec = rec
	ends := rl.r.endsTurn(msgs)
	if ends && rl.r.resp != nil {
		c.resp = l.responseOf(rl.r, msgs, rec.NextSeq) // stored with the answer
	}
	l.mu.Unlock()
	calls := rl.r.spent
	c.usage, rl.r.spent = l.usageOf(rl.r, rec, calls), nil
	written := false
	defer func() {
		if !written { // the next write, or the run's end, takes them
			rl.r.spent = append(calls, rl.r.spent...)
		}
	}()
	if d := l.deferred; d != nil && d.from+uint64(len(d.msgs)) == c.from {
		// The run's user message and its first messages, in one write.
		merged := *d
		merged.msgs = append(slices.Clip(d.msgs), c.msgs...)
		merged.rec, merged.usage, merged.resp, merged.outputs = c.rec, c.usage, c.resp, c.outputs
		if err := l.m.apply(l, merged); err != nil {
			l.refusedLocked(err)
			return err
		}
		l.deferred = nil
	} else if err := l.write(c); err != nil {
		return err
	}
	written = true
	l.mu.Lock()
	rl.r.respDone = rl.r.respDone || c.resp != nil
	l.rec = rec
	l.history = append(l.history, msgs...)
	l.last = rec.Updated
	if len(msgs) == 0 {
		l.mu.Unlock()
		return nil
	}
	if ends && rec.Thread != "" {
		l.endTurn(rl.r.id) // the answer, or the calls for the client: the client's copy will end here
	}
	l.mu.Unlock()
	return nil
}

// Spend implements loop.Lane: the run's next write takes call to the
// usage ledger.
func (rl *runLane) Spend(call beamclaw.LLMCall) {
	rl.r.spent = append(rl.r.spent, call)
	rl.r.used = rl.r.used.Add(call.Usage)
}

// usageOf is the ledger entries of calls r made in the session whose
// record is rec (nil without a ledger).
func (l *lane) usageOf(r *run, rec record, calls []beamclaw.LLMCall) []usage.Entry {
	if len(calls) == 0 || l.m.opts.Ledger == nil {
		return nil
	}
	return l.m.opts.Ledger.Entries(usage.Attribution{Session: l.id, User: l.m.opts.Person(rec.UserID), Agent: rec.AgentID,
		Channel: r.channel, Origin: usage.OriginOf(r.channel, rec.Thread, r.maintain != nil)}, calls)
}

// spendLeft records the calls r made after its last write (a run that
// failed or was canceled after paying for a call) on their own.
func (l *lane) spendLeft(ctx context.Context, r *run) {
	calls := r.spent
	r.spent = nil
	l.mu.Lock()
	rec := l.rec
	l.mu.Unlock()
	if es := l.usageOf(r, rec, calls); len(es) > 0 {
		if err := l.m.opts.Ledger.Record(context.WithoutCancel(ctx), es); err != nil && !errors.Is(err, usage.ErrNotWritable) {
			l.m.log.Warn("usage ledger", "session_id", l.id, "err", err)
		}
	}
}

// Replace swaps the history for a compacted one that keeps the run's
// input and everything after it.
func (rl *runLane) Replace(_ context.Context, history []beamclaw.Message) error {
	l := rl.l
	return l.update(func(rec *record) (change, bool) {
		if rl.r.epoch != l.epoch {
			return change{}, false
		}
		if rl.r.maintain == nil { // maintenance is not activity: the TTL still counts from the last message
			rec.Updated = l.m.clock.Now()
		}
		c := change{reset: true, from: rec.NextSeq, msgs: history, usage: l.usageOf(rl.r, *rec, rl.r.spent)}
		old := rec.NextSeq
		rec.NextSeq += uint64(len(history))
		rec.Messages = len(history)
		rec.Marks = nil // a thread's marks point into the history that is gone
		rec.Moved = &moved{From: old, To: rec.NextSeq}
		return c, true
	}, func() {
		rl.r.spent = nil // written with the history
		tail := len(l.history) - rl.r.start
		l.history = slices.Clip(history)
		rl.r.start = max(0, len(history)-tail)
		if rl.r.maintain != nil {
			rl.r.compactedTo = len(history)
		}
	})
}

// Allowed reports whether an "always" approval covers key.
func (rl *runLane) Allowed(key string) bool {
	rl.l.mu.Lock()
	defer rl.l.mu.Unlock()
	_, ok := rl.l.allow[key]
	return ok
}

// Await registers req, has it delivered (asked), and waits for a
// decision: from Manager.Decide, a "/yes" "/no" "/always" message, or the
// approval timeout (Deny).
func (rl *runLane) Await(ctx context.Context, req beamclaw.ApprovalRequest, key string, asked func()) (beamclaw.Decision, error) {
	l := rl.l
	a := &approval{id: req.ID, origin: rl.r.origin, channel: rl.r.channel, asked: l.m.clock.Now(), key: key,
		ch: make(chan beamclaw.Decision, 1), req: req}
	l.mu.Lock()
	l.approvals = append(l.approvals, a)
	l.mu.Unlock()
	defer l.dropApproval(a)
	asked() // answerable from now on: the request goes out
	select {
	case d := <-a.ch:
		return d, nil
	case <-l.m.clock.After(l.m.opts.ApprovalTimeout):
		return beamclaw.Deny, loop.ErrApprovalTimeout
	case <-ctx.Done():
		return beamclaw.Deny, ctx.Err()
	}
}

func (l *lane) dropApproval(a *approval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.approvals, a); i >= 0 {
		l.approvals = slices.Delete(l.approvals, i, i+1)
	}
}

// user is the session's user id.
func (l *lane) user() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rec.UserID
}

// decide answers the approval id ("" = the oldest one) asked on origin;
// with cross-channel answering on, on any origin (but never from a route
// that cannot approve, origin ""). It reports false when there is no such
// approval.
func (l *lane) decide(id, origin string, d beamclaw.Decision) (beamclaw.ApprovalRequest, bool) {
	if origin == "" {
		return beamclaw.ApprovalRequest{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, a := range l.approvals {
		if (id != "" && a.id != id) || (a.origin != origin && !l.m.opts.CrossChannelApprovals) {
			continue
		}
		l.approvals = slices.Delete(l.approvals, i, i+1)
		if d == beamclaw.Always {
			if l.allow == nil {
				l.allow = make(map[string]struct{})
			}
			l.allow[a.key] = struct{}{}
		}
		a.ch <- d
		return a.req, true
	}
	return beamclaw.ApprovalRequest{}, false
}

// reset empties the history (session_reset). Runs queued stay queued; a
// run in flight keeps answering but its messages are not stored.
func (l *lane) reset(ctx context.Context) error {
	err := l.update(func(rec *record) (change, bool) {
		rec.Updated = l.m.clock.Now()
		rec.Messages, rec.Marks, rec.Moved = 0, nil, nil
		rec.NextSeq++ // a gap: no response of the history that is gone continues (continueFrom)
		return change{reset: true, created: !l.stored}, true
	}, func() {
		l.stored = true
		l.history = nil
		l.allow = nil
		l.epoch++
	})
	if err != nil {
		return err
	}
	l.m.emit(ctx, beamclaw.EventSessionReset, l.id)
	return nil
}

// update is how a lane changes what it stores: with l.wmu held, prepare
// edits a copy of the record under l.mu and returns the change to write
// (false: nothing to do); the change, carrying the record, is written
// after any deferred user message; then, under l.mu, the record becomes
// the lane's and done brings the rest of memory along. A failed write
// leaves memory as it was.
func (l *lane) update(prepare func(rec *record) (change, bool), done func()) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	rec := l.rec
	c, ok := prepare(&rec)
	l.mu.Unlock()
	if !ok {
		return nil
	}
	c.rec = rec
	if err := l.write(c); err != nil {
		return err
	}
	l.mu.Lock()
	l.rec = rec
	done()
	l.mu.Unlock()
	return nil
}

// write applies c to the backend after the deferred user message, if one
// waits (a write never overtakes it). The caller holds l.wmu.
func (l *lane) write(c change) error {
	if err := l.flushLocked(false); err != nil {
		return err
	}
	return l.m.apply(l, c)
}

// flush writes the deferred user message, if one waits, for the run it
// belongs to, which has ended: a message the store refuses is taken back.
func (l *lane) flush() error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	return l.flushLocked(true)
}

// flushLocked is flush with l.wmu held. takeBack is true only for the
// message's own run (its end): another writer's failure leaves the message
// deferred, its run still going.
func (l *lane) flushLocked(takeBack bool) error {
	d := l.deferred
	if d == nil {
		return nil
	}
	if err := l.m.apply(l, *d); err != nil {
		if takeBack {
			l.refusedLocked(err)
		}
		return err
	}
	l.deferred = nil
	return nil
}

// refusedLocked takes the deferred user message back when the store
// refused it for its own sake (disk full): nobody was told it was stored
// (its channel acknowledges with the answer, which is now an error), so it
// leaves nothing behind, in memory either, and the client's retry is its
// only copy, under the same message id too. Other errors leave it
// deferred. The caller holds l.wmu.
func (l *lane) refusedLocked(err error) {
	d := l.deferred
	if d == nil || beamclaw.KindOf(err) != beamclaw.KindStorage {
		return
	}
	l.deferred = nil
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(d.msgs)
	if k := len(l.history) - n; n > 0 && k >= 0 && l.rec.NextSeq == d.from+uint64(n) {
		l.history = l.history[:k:k]
		l.rec.NextSeq, l.rec.Messages = d.from, max(l.rec.Messages-n, 0)
	}
	if d.created {
		l.stored = false
	}
	if d.seen != nil {
		delete(l.seen, d.seen.ID)
		if i := len(l.seenOrder) - 1; i >= 0 && l.seenOrder[i].ID == d.seen.ID {
			l.seenOrder = l.seenOrder[:i]
		}
	}
}
