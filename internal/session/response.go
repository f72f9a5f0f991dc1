package session

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
)

// Response is a stored Responses API response (Inbound.Response): where
// its run left the session, and what the run answered. A completed run's
// record is written with its answer, in the same transaction; a run that
// failed or was canceled has its record written when it ends.
type Response struct {
	ResponseHead
	Run     string    `json:"run"`
	Reason  string    `json:"reason,omitempty"`
	Created time.Time `json:"created"`
	Done    time.Time `json:"done"`
	// Output is what the run added after its input: assistant messages
	// (with their tool calls) and the agent's tool results. Calls of the
	// client's functions without a result are the response's open calls.
	Output []beamclaw.Message `json:"output,omitempty"`
	Usage  beamclaw.Usage     `json:"usage"`
	// Echo is the edge's description of the request (ResponseRef.Echo).
	Echo json.RawMessage `json:"echo,omitempty"`
}

// ResponseHead is what continuing from a response needs of it: whose it
// is and where its run left the session.
type ResponseHead struct {
	ID    string `json:"id"`
	User  string `json:"user"`
	Agent string `json:"agent"`
	// Status: completed, incomplete (Reason says why: approval_required),
	// failed (Reason holds the error's words) or cancelled.
	Status string `json:"status"`
	// At is the session and where the run left its history: a message
	// continuing from this response continues from there.
	At beamclaw.Point `json:"at"`
}

// Response statuses.
const (
	StatusCompleted  = "completed"
	StatusIncomplete = "incomplete"
	StatusFailed     = "failed"
	StatusCancelled  = "cancelled"
	// ReasonApproval: a tool needed an approval nobody on the route could
	// give (the OpenAI-compatible APIs), so it was not run.
	ReasonApproval = "approval_required"
)

// Response returns stored response id of userID (KindNotFound for
// another user's; userID "" reads anyone's: a response id is a random
// capability).
func (m *Manager) Response(_ context.Context, userID, id string) (Response, error) {
	var r Response
	err := m.readResponse(userID, id, &r, &r.ResponseHead)
	return r, err
}

// ResponseHead reads only the head of stored response id of userID (as
// Response does): what a message continuing from it needs.
func (m *Manager) ResponseHead(_ context.Context, userID, id string) (ResponseHead, error) {
	var h ResponseHead
	err := m.readResponse(userID, id, &h, &h)
	return h, err
}

// readResponse decodes response id into v, whose head is h.
func (m *Manager) readResponse(userID, id string, v any, h *ResponseHead) error {
	const op = "session.Response"
	ok, err := m.store.response(id, v)
	switch {
	case err != nil:
		return loadError(op, err)
	case !ok || (userID != "" && h.User != userID):
		return beamclaw.E(op, beamclaw.KindNotFound, "no such response", nil)
	}
	return nil
}

// DeleteResponse deletes stored response id of userID; the conversation
// it is part of stays.
func (m *Manager) DeleteResponse(ctx context.Context, userID, id string) error {
	if _, err := m.Response(ctx, userID, id); err != nil {
		return err
	}
	if err := m.store.deleteResponse(id); err != nil {
		return beamclaw.E("session.DeleteResponse", beamclaw.KindStorage, "could not delete the response", err)
	}
	return nil
}

// CancelResponse cancels the run in progress that answers response id of
// userID and returns once it ended (its record written), or when ctx
// ends. KindNotFound: no such run in progress.
func (m *Manager) CancelResponse(ctx context.Context, userID, id string) error {
	for _, l := range m.lanes() {
		l.mu.Lock()
		var found *run
		for _, r := range append([]*run{l.inflight}, l.queue...) {
			if r != nil && r.resp != nil && r.resp.ID == id && (userID == "" || l.rec.UserID == userID) {
				found = r
				break
			}
		}
		l.mu.Unlock()
		if found == nil {
			continue
		}
		if err := m.Cancel(ctx, l.id, found.id); err != nil {
			return err
		}
		select {
		case <-found.ended:
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	}
	return m.elsewhere(ctx, "session.CancelResponse", cluster.OwnerOp{Kind: cluster.OpCancelResponse, User: userID, Response: id},
		"no such response in progress")
}

// responseOf is the record of r's response after its turn ended with
// the messages msgs (appended to history now, not yet in l.history), the
// session's next key being next. The caller holds l.mu.
func (l *lane) responseOf(r *run, msgs []beamclaw.Message, next uint64) *Response {
	status, reason := StatusCompleted, ""
	if r.route.neededApproval() {
		status, reason = StatusIncomplete, ReasonApproval
	}
	var out []beamclaw.Message
	if from := r.start + len(r.msgs); r.epoch == l.epoch && from <= len(l.history) {
		out = slices.Clone(l.history[from:])
	}
	out = append(out, msgs...)
	head := ResponseHead{ID: r.resp.ID, User: l.rec.UserID, Agent: l.rec.AgentID, Status: status,
		At: beamclaw.Point{Session: l.id, Seq: next}}
	return &Response{ResponseHead: head, Run: r.id, Reason: reason, Created: r.msgs[0].Time, Done: l.m.clock.Now(),
		Output: out, Usage: r.used, Echo: r.resp.Echo}
}

// endResponse stores the record of r's response when its run ended with
// ev without an answer stored (failed, canceled): its error's words, and
// the point the history reached. It is written before ev reaches the
// client where it can be (responseRoute), so a client that saw the end
// finds the record.
func (l *lane) endResponse(r *run, ev beamclaw.RunEvent) {
	if r.resp == nil || r.respDone {
		return
	}
	err := l.update(func(rec *record) (change, bool) {
		resp := l.responseOf(r, nil, rec.NextSeq)
		resp.Status, resp.Reason = StatusFailed, ev.Text
		switch {
		case r.canceled:
			resp.Status, resp.Reason = StatusCancelled, ""
		case ev.Type == beamclaw.EvFinal: // answered, but its answer was not stored
			resp.Reason = "the conversation was reset while this response ran: its answer was not stored"
		}
		return change{resp: resp}, true
	}, func() { r.respDone = true })
	if err != nil && beamclaw.KindOf(err) != beamclaw.KindStorage {
		l.m.log.Error("store the response of a run that did not answer", "session_id", l.id, "run_id", r.id, "err", err)
	}
}

// responseRoute is the route a run answering a response runs with: its
// error is stored (endResponse) before the client hears of it.
type responseRoute struct {
	l *lane
	r *run
}

func (rr responseRoute) Deliver(ev beamclaw.RunEvent) {
	if ev.Type == beamclaw.EvError {
		rr.l.endResponse(rr.r, ev)
	}
	rr.r.route.Deliver(ev)
}

// endsTurn reports whether msgs, committed by r, end its turn: an answer,
// or calls of the client's functions, which park it.
func (r *run) endsTurn(msgs []beamclaw.Message) bool {
	if len(msgs) == 0 {
		return false
	}
	if last := msgs[len(msgs)-1]; last.Role == beamclaw.RoleAssistant && len(last.ToolCalls) == 0 {
		return true
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if slices.ContainsFunc(r.functions, func(d beamclaw.ToolDef) bool { return d.Name == c.Name }) {
				return true
			}
		}
	}
	return false
}

// openCalls are the tool calls at the end of history still waiting for
// their results: those of its last assistant message with calls, when
// only tool results follow it. They are calls of a client's functions
// (the agent's own calls get their results in the same write).
func openCalls(history []beamclaw.Message) []beamclaw.ToolCall {
	answered := map[string]bool{}
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		switch {
		case m.Role == beamclaw.RoleTool:
			answered[m.ToolCallID] = true
			continue
		case m.Role == beamclaw.RoleAssistant && len(m.ToolCalls) > 0:
			var open []beamclaw.ToolCall
			for _, c := range m.ToolCalls {
				if !answered[c.ID] {
					open = append(open, c)
				}
			}
			return open
		}
		return nil
	}
	return nil
}

// continueFrom resolves in.From: the session itself when the point is the
// end of its history (or when the session already holds in's message id:
// a resend, answered there); otherwise in.Thread (a new one when unset)
// holding a copy of the history up to the point (a branch; the original
// is untouched).
func (m *Manager) continueFrom(ctx context.Context, in *beamclaw.Inbound) error {
	const op = "session.Send"
	p := *in.From
	src, err := m.acquire(ctx, p.Session, nil)
	if err != nil {
		return err
	}
	defer m.release(src)
	if !src.ownedBy(in.UserID, in.AgentID, m.opts.Person) {
		return notFound(op, p.Session)
	}
	if err := src.settle(ctx); err != nil {
		return beamclaw.E(op, beamclaw.KindTimeout, "the conversation stayed busy", err)
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if mv := src.rec.Moved; mv != nil && p.Seq == mv.From { // the end of a history since compacted
		p.Seq = mv.To
	}
	next := src.rec.NextSeq
	base := next - uint64(len(src.history))
	_, resent := src.seen[in.MessageID]
	switch {
	case resent && in.MessageID != "":
		in.Session = p.Session
		return nil
	case p.Seq == next:
		in.Session = p.Session
		in.From = &beamclaw.Point{Session: p.Session, Seq: next} // submit checks nobody went on meanwhile
		return nil
	case p.Seq < base || p.Seq > next:
		return beamclaw.E(op, beamclaw.KindConflict, "the conversation was compacted or reset after this response: "+
			"continue from its newest response", nil)
	}
	if in.Thread == "" {
		in.Thread = newThread()
	}
	in.Transcript = &beamclaw.Transcript{Messages: slices.Clone(src.history[:p.Seq-base])}
	return nil
}
