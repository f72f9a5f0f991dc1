package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// submit persists the input of r (its user message, or the client's
// function results) and queues r. The input goes straight into history
// when the lane is idle, and into the pending area otherwise (it joins
// history when its run starts, so history stays in conversation order).
func (l *lane) submit(r *run, msgID string) (dupOf string, err error) {
	now := l.m.clock.Now()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	if prev, ok, err := l.seenRun(msgID, r.digest); ok {
		l.mu.Unlock()
		return prev, err
	}
	var seen *seenID
	var forget []string
	if msgID != "" {
		seen = &seenID{ID: msgID, RunID: r.id, At: now, Digest: r.digest}
		forget = l.expiring(now)
	}
	idle := l.inflight == nil && len(l.queue) == 0
	var copied *copiedHistory // a thread's history made to match the client's copy first
	if idle && r.transcript != nil {
		if hist, marks, same := l.transcriptHistory(r.transcript); !same {
			copied = &copiedHistory{hist: hist, marks: marks}
		}
	}
	before := l.history
	if copied != nil {
		before = copied.hist
	}
	if err := l.checkInput(r, idle, before); err != nil {
		l.mu.Unlock()
		return "", err
	}
	rec := l.rec
	rec.Updated, rec.Archived = now, time.Time{} // a message makes an archived session active again
	c := change{created: !l.stored, seen: seen, forget: forget}
	rewrite := l.inputChange(r, idle, copied, &rec, &c)
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
			l.history = append(l.history, r.msgs...)
		}
		r.start, r.epoch = len(l.history)-len(r.msgs), l.epoch
	case !r.held:
		for i := range r.msgs {
			r.pending = append(r.pending, c.pendSeq+uint64(i))
		}
	}
	l.queue = append(l.queue, r)
	l.forgetIDs(forget)
	if seen != nil {
		l.remember(*seen)
	}
	l.queued(r)
	return "", nil
}

// copiedHistory is the history a thread is made to hold before a run's
// input when it must match the client's copy (transcriptHistory).
type copiedHistory struct {
	hist  []beamclaw.Message
	marks []mark
}

// inputChange puts r's input into c and rec: appended to history when
// the lane is idle, pending otherwise; a thread whose history must first
// match the client's copy (copied) is rewritten whole (returned: the new
// history). The caller holds l.mu.
func (l *lane) inputChange(r *run, idle bool, copied *copiedHistory, rec *record, c *change) (rewrite []beamclaw.Message) {
	if copied != nil {
		rewrite = append(copied.hist, r.msgs...)
		c.reset, c.from, c.msgs = true, rec.NextSeq, rewrite
		rec.NextSeq += uint64(len(rewrite))
		rec.Messages, rec.Marks = len(rewrite), copied.marks
	}
	switch {
	case rewrite != nil:
	case idle:
		c.from, c.msgs = rec.NextSeq, r.msgs
		rec.NextSeq += uint64(len(r.msgs))
		rec.Messages += len(r.msgs)
	default:
		c.pend, c.pendSeq = r.msgs, rec.NextPending+1
		rec.NextPending += uint64(len(r.msgs))
	}
	c.rec = *rec
	return rewrite
}

// queued tells r's sender when its message waits behind a run that waits
// for the user's answer (rather than leave it at "thinking…"), and starts
// the lane. The caller holds l.mu, which queued releases.
func (l *lane) queued(r *run) {
	waiting := l.waitingOn()
	l.mu.Unlock()
	if waiting != "" {
		r.route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvWaiting, RunID: r.id, SessionID: l.id, Text: waiting})
	}
	l.activate()
}

// waitingOn says what a message queued now waits for when the run ahead
// of it waits for the user's answer ("" when nothing does). The caller
// holds l.mu.
func (l *lane) waitingOn() string {
	if len(l.approvals) == 0 {
		return ""
	}
	a := l.approvals[0].req
	return "This message waits for your answer to the approval asked earlier (" + a.ToolName +
		"): answer it with /yes, /no or /always; it runs once that is answered or the approval times out."
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
		return (m.Role == beamclaw.RoleUser || m.Role == beamclaw.RoleTool) && m.ID == prevRunID
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
	end := idx + len(resend.msgs)
	if end != len(l.history) {
		l.mu.Unlock()
		route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, RunID: prevRunID, SessionID: l.id, Text: msgStopped})
		return
	}
	// Stored, unanswered and newest: answer it now, without storing it twice.
	resend.id, resend.msgs = prevRunID, slices.Clone(l.history[idx:end])
	resend.start, resend.epoch, resend.pending = idx, l.epoch, nil
	l.queue = append(l.queue, resend)
	l.mu.Unlock()
	l.activate()
}

// The window of remembered message ids: the last seenMax, or those of
// the last seenTTL, whichever holds more.
const (
	seenMax = 1000
	seenTTL = 24 * time.Hour
)

// seenRun returns the run of a channel message id already submitted, or
// ErrMessageReused when it came with another digest (ids remembered or
// sent without one are not compared).
func (l *lane) seenRun(msgID, digest string) (string, bool, error) {
	if msgID == "" {
		return "", false, nil
	}
	e, ok := l.seen[msgID]
	if ok && e.Digest != "" && digest != "" && e.Digest != digest {
		return "", true, beamclaw.ErrMessageReused
	}
	return e.RunID, ok, nil
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

// checkInput refuses r when the session cannot take it now: results of
// function calls that are not the ones open at the end of before (the
// history r's input is to follow), or a new user message while calls of
// the client's functions wait for their results (the model cannot be
// asked with calls unanswered). Results need an idle session (Send waits
// for it): they answer the end of the history as it stands. The caller
// holds l.mu.
func (l *lane) checkInput(r *run, idle bool, before []beamclaw.Message) error {
	if r.expect != 0 && (!idle || l.rec.NextSeq != r.expect) {
		return beamclaw.E("session.Send", beamclaw.KindConflict, "the conversation went on since this response "+
			"(another request continued it): continue from its newest response, or send again to branch", errWentOn)
	}
	results := r.msgs[0].Role == beamclaw.RoleTool
	if !idle {
		if results {
			return beamclaw.E("session.Send", beamclaw.KindConflict, "the conversation is busy: a run is in progress", beamclaw.ErrOpenCalls)
		}
		return nil
	}
	return matchOpenCalls(openCalls(before), r.msgs, results)
}

// errWentOn is the cause of a conflict: a turn continuing a response in
// place found the conversation gone on.
var errWentOn = errors.New("the conversation went on")

// msgNoResult is the result of a client's call that a message queued
// while it was made went on without (closeOpenCalls).
const msgNoResult = "(no result: the conversation went on without one)"

// closeOpenCalls returns input, a queued run's, ready to follow the
// history: a user message that was queued while the run ahead stopped at
// the client's calls first closes them with msgNoResult, so the model is
// never sent calls without results. The caller holds l.mu.
func (l *lane) closeOpenCalls(input []beamclaw.Message) []beamclaw.Message {
	if len(input) == 0 || input[0].Role != beamclaw.RoleUser {
		return input
	}
	open := openCalls(l.history)
	if len(open) == 0 {
		return input
	}
	out := make([]beamclaw.Message, 0, len(open)+len(input))
	for _, c := range open {
		out = append(out, beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: msgNoResult, Time: input[0].Time})
	}
	return append(out, input...)
}

// matchOpenCalls checks input against the calls open at the end of the
// history.
func matchOpenCalls(open []beamclaw.ToolCall, input []beamclaw.Message, results bool) error {
	const op = "session.Send"
	ids := make([]string, len(open))
	for i, c := range open {
		ids[i] = c.ID
	}
	if !results {
		if len(open) > 0 {
			return beamclaw.E(op, beamclaw.KindInvalid, "the conversation waits for the results of the function calls "+
				strings.Join(ids, ", ")+": send them before a new message", beamclaw.ErrOpenCalls)
		}
		return nil
	}
	got := make([]string, 0, len(input))
	for _, m := range input {
		if !slices.Contains(ids, m.ToolCallID) {
			return beamclaw.E(op, beamclaw.KindInvalid, fmt.Sprintf("no function call %q waits for a result in this conversation", m.ToolCallID), beamclaw.ErrOpenCalls)
		}
		if slices.Contains(got, m.ToolCallID) {
			return beamclaw.E(op, beamclaw.KindInvalid, fmt.Sprintf("the function call %q has two results", m.ToolCallID), beamclaw.ErrOpenCalls)
		}
		got = append(got, m.ToolCallID)
	}
	var missing []string
	for _, id := range ids {
		if !slices.Contains(got, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return beamclaw.E(op, beamclaw.KindInvalid, "no result was sent for the function calls "+strings.Join(missing, ", "), beamclaw.ErrOpenCalls)
	}
	return nil
}
