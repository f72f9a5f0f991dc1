package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/thejerf/suture/v4"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
	"github.com/beamclaw/beamclaw-go/internal/usage"
)

// Manager is the session registry: it finds or revives sessions, owns the
// supervisor of the per-session supervisors, and runs the hibernation and
// cleanup of idle sessions. Add it to the daemon's tree (it is a suture
// Service); Send and the other methods are safe for concurrent use.
type Manager struct {
	opts  Options
	store backend
	clock clock.Clock
	log   *slog.Logger
	sup   *suture.Supervisor

	mu      sync.Mutex
	live    map[string]*lane
	stopped bool
	// draining: this node leaves its cluster (Drain); only the sessions
	// live here take messages.
	draining bool

	prefix string
	seq    atomic.Uint64

	elicits elicitations // questions tools put to users, waiting (elicit.go)
	maint   maintainer   // what session maintenance did (maintain.go)
}

// Stats counts sessions.
type Stats struct {
	Live       int // with goroutines and history in memory
	Hibernated int // stored only
	Stored     int // in the backend (live ones included once written)
}

// New returns a Manager; it serves nothing until Serve runs.
func New(opts Options) (*Manager, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Manager{opts: o, clock: o.Clock, log: o.Logger, live: make(map[string]*lane),
		maint: maintainer{marks: map[string]maintMark{}}}
	var js *jsBackend
	switch {
	case o.Cluster != nil:
		js = newJSBackend(o.Cluster)
		js.lost, js.ledger, js.log = m.lost, o.Ledger, o.Logger
		m.store = js
	case o.Persist:
		b, err := newBoltBackend(o.DB)
		if err != nil {
			return nil, err
		}
		b.ledger = o.Ledger
		m.store = withSummaryCache(b)
	default:
		m.store = newMemBackend()
	}
	var p [4]byte
	_, _ = rand.Read(p[:])
	m.prefix = hex.EncodeToString(p[:])
	m.sup = supervise.New("sessions", supervise.Options{Logger: o.Logger})
	if js != nil {
		m.sup.Add(supervise.Func("session_leases", js.keep))
		m.sup.Add(supervise.Func("session_store", js.open))
	}
	// The cleaner and maintenance work on every stored session: in a
	// cluster they run on one node (a singleton), which claims what it
	// changes. Hibernation is each node's own.
	shared := func(name string, run func(context.Context) error) func(context.Context) error { return run }
	if o.Cluster != nil {
		shared = o.Cluster.Singleton
	}
	if o.TTL > 0 {
		m.sup.Add(supervise.Func("session_cleaner", shared("session_cleaner", m.clean)))
	}
	if o.IdleHibernate > 0 {
		m.sup.Add(supervise.Func("session_hibernator", m.hibernator))
	}
	if o.Maintenance.Scan > 0 {
		m.sup.Add(supervise.Func("session_maintenance", shared("session_maintenance", m.maintenance)))
	}
	return m, nil
}

// Serve runs the sessions until ctx ends; runs still waiting then get an
// EvError.
func (m *Manager) Serve(ctx context.Context) error {
	err := m.sup.Serve(ctx)
	m.mu.Lock()
	m.stopped = true
	lanes := make([]*lane, 0, len(m.live))
	for _, l := range m.live {
		lanes = append(lanes, l)
	}
	clear(m.live)
	m.mu.Unlock()
	for _, l := range lanes {
		l.stop()
		m.unclaim(l) // another node may take it at once
	}
	return err
}

func (m *Manager) String() string { return "sessions" }

// SessionID is the id of the session an inbound message belongs to (its
// thread's when it names one).
func (m *Manager) SessionID(in beamclaw.Inbound) string {
	if in.Session != "" {
		return in.Session
	}
	return ThreadID(in.UserID, in.AgentID, in.Channel, m.opts.PerChannel, in.Thread)
}

// Send hands a message to its session and returns the id of the run that
// will answer it on in.Route: exactly one terminal event (EvFinal or
// EvError) follows. It returns once the message is durable. A "/yes",
// "/no" or "/always" while an approval waits answers that approval; its
// own run then ends at once with an EvFinal confirming the decision.
func (m *Manager) Send(ctx context.Context, in beamclaw.Inbound) (string, error) {
	const op = "session.Send"
	if in.Rejoin && forwarded(ctx) { // a connection to another node, for a session live here
		return m.rejoinHere(in)
	}
	if in.UserID == "" || in.AgentID == "" {
		return "", beamclaw.E(op, beamclaw.KindInvalid, "a message needs a user and an agent", nil)
	}
	if in.From != nil {
		if err := m.continueFrom(ctx, &in); err != nil {
			return "", err
		}
	}
	if err := m.resolveThread(&in); err != nil {
		return "", beamclaw.E(op, beamclaw.KindStorage, "", err)
	}
	id := m.SessionID(in)
	seed := &record{UserID: in.UserID, AgentID: in.AgentID, Channel: in.Channel, Thread: in.Thread}
	if in.Session != "" {
		seed = nil // a resumed session must exist
	}
	l, err := m.acquire(ctx, id, seed)
	if owner, ok := errors.AsType[*OwnedElsewhereError](err); ok && m.opts.Forward != nil && in.Route != nil && !forwarded(ctx) {
		return m.forward(ctx, owner, in, id, seed)
	}
	if err != nil {
		return "", err
	}
	defer m.release(l)
	if in.Session != "" && !l.ownedBy(in.UserID, in.AgentID, m.opts.Person) {
		return "", notFound(op, id)
	}
	runID := m.newID("run")
	route := newOnceRoute(in.Route)
	if d, ok := slashDecision(in.Content); ok && in.Response == nil { // a response's input is the model's
		text := msgNothingToApprove
		if !in.NoApproval {
			if req, ok := l.decide("", in.Origin, d); ok {
				text = decisionText(req, d)
			}
		}
		route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, RunID: runID, SessionID: id, Text: text})
		return runID, nil
	}
	r := &run{id: runID, channel: in.Channel, trust: in.Trust, origin: in.Origin, autonomy: m.autonomy(in), noAsk: in.NoApproval, route: route,
		sampling: in.Sampling, transcript: in.Transcript, ackOnAnswer: in.AckOnAnswer, digest: in.MessageDigest,
		msgs: m.input(runID, in), functions: in.Functions, instructions: in.Instructions, resp: in.Response, ended: make(chan struct{})}
	if in.From != nil && in.Session == in.From.Session {
		r.expect = in.From.Seq
	}
	if len(in.ToolResults) > 0 || len(in.Functions) > 0 || in.Response != nil {
		// The input answers, or may leave, calls at the end of the
		// history: it is checked against the history once the run ahead
		// (which may be the one that stopped at them) ended.
		if err := l.settle(ctx); err != nil {
			return "", beamclaw.E(op, beamclaw.KindTimeout, "the conversation stayed busy", err)
		}
	}
	prev, err := l.submit(r, in.MessageID)
	switch {
	case errors.Is(err, beamclaw.ErrOpenCalls), errors.Is(err, errWentOn):
		return "", err
	case errors.Is(err, beamclaw.ErrMessageReused):
		return "", beamclaw.E(op, beamclaw.KindConflict, "this message id was already used for a different message", err)
	case err != nil:
		if beamclaw.KindOf(err) == beamclaw.KindStorage {
			return "", beamclaw.E(op, beamclaw.KindStorage, "", err) // the store's own words: retry later
		}
		return "", beamclaw.E(op, beamclaw.KindUnavailable, "could not store the message", err)
	case prev != "":
		l.answerResend(prev, r)
		return prev, nil
	}
	return runID, nil
}

// autonomy is the lowest of the agent's level, the channel's ceiling,
// the ceiling of the channel whose trust the run has (Inbound.Trust) and
// the edge's own ceiling.
func (m *Manager) autonomy(in beamclaw.Inbound) beamclaw.Autonomy {
	a := m.opts.Autonomy(in.AgentID)
	if c, ok := m.opts.Ceilings[in.Channel]; ok {
		a = a.Min(c)
	}
	if c, ok := m.opts.Ceilings[in.Trust]; ok && in.Trust != "" {
		a = a.Min(c)
	}
	if in.Autonomy != "" {
		a = a.Min(in.Autonomy)
	}
	return a
}

func slashDecision(content string) (beamclaw.Decision, bool) {
	s := strings.ToLower(strings.TrimSpace(content))
	if !strings.HasPrefix(s, "/") {
		return "", false
	}
	return beamclaw.ParseDecision(s)
}

func decisionText(req beamclaw.ApprovalRequest, d beamclaw.Decision) string {
	switch d {
	case beamclaw.Allow:
		return "Approved " + req.ToolName + " once."
	case beamclaw.Always:
		return "Approved " + req.ToolName + " with these arguments for the rest of the session."
	}
	return "Denied " + req.ToolName + "."
}

// msgNothingToApprove answers /yes, /no or /always when no approval waits
// on the route it came from.
const msgNothingToApprove = "Nothing is waiting for your approval here."

// Decide answers a pending approval of a session asked on origin (see
// Inbound.Origin).
func (m *Manager) Decide(ctx context.Context, sessionID, approvalID, origin string, d beamclaw.Decision) error {
	const op = "session.Decide"
	m.mu.Lock()
	l := m.live[sessionID]
	m.mu.Unlock()
	if l == nil {
		return m.elsewhere(ctx, op, cluster.OwnerOp{Session: sessionID, Approval: approvalID, Origin: origin, Decision: d}, "no such approval")
	}
	if _, ok := l.decide(approvalID, origin, d); !ok {
		return beamclaw.E(op, beamclaw.KindNotFound, "no such approval", nil)
	}
	return nil
}

// DecideFor answers an approval known by its id and the user answering it
// (a Telegram button carries no session id). Only that user's live
// sessions are asked — approvals exist only in live sessions — so nobody
// can answer another user's approval by guessing its id.
func (m *Manager) DecideFor(ctx context.Context, userID, approvalID, origin string, d beamclaw.Decision) error {
	const op = "session.DecideFor"
	if approvalID == "" || userID == "" {
		return beamclaw.E(op, beamclaw.KindInvalid, "an approval id and a user are required", nil)
	}
	for _, l := range m.lanes() {
		if l.user() != userID {
			continue
		}
		if _, ok := l.decide(approvalID, origin, d); ok {
			return nil
		}
	}
	return m.elsewhere(ctx, op, cluster.OwnerOp{User: userID, Approval: approvalID, Origin: origin, Decision: d}, "no such approval")
}

// Reset empties a session's history (session_reset).
func (m *Manager) Reset(ctx context.Context, sessionID string) error {
	l, err := m.acquire(ctx, sessionID, nil)
	if err != nil {
		return err
	}
	defer m.release(l)
	if err := l.reset(ctx); err != nil {
		return beamclaw.E("session.Reset", beamclaw.KindUnavailable, "could not reset the session", err)
	}
	return nil
}

func (m *Manager) newID(kind string) string {
	return kind + "-" + m.prefix + "-" + strconv.FormatUint(m.seq.Add(1), 36)
}

func (m *Manager) emit(ctx context.Context, name beamclaw.EventName, sessionID string, attrs ...slog.Attr) {
	if m.opts.Emitter == nil {
		return
	}
	m.opts.Emitter.Emit(ctx, beamclaw.Event{Name: name, SessionID: sessionID, Time: m.clock.Now(), Attrs: attrs})
}

func notFound(op, id string) error {
	return beamclaw.E(op, beamclaw.KindNotFound, "no such session", fmt.Errorf("session %q", id))
}

// Rejoin is what a person's new connection to session sessionID gets on
// origin (a channel kind and the person, not one connection): the
// approvals waiting for that origin, asked on a connection that may have
// gone, and route attached to the run in flight when it was that origin's,
// so that it gets the run's events from now on (its answer, once
// approved). Another origin, and the API (origin ""), get nothing.
func (m *Manager) Rejoin(sessionID, origin string, route beamclaw.Route) []beamclaw.RunEvent {
	if origin == "" {
		return nil
	}
	m.mu.Lock()
	l := m.live[sessionID]
	m.mu.Unlock()
	if l == nil {
		m.rejoinElsewhere(sessionID, origin, route) // in a cluster, it may live on another node
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []beamclaw.RunEvent
	r := l.inflight
	for _, a := range l.approvals {
		if a.origin == origin && r != nil {
			req := a.req
			out = append(out, beamclaw.RunEvent{Type: beamclaw.EvApprovalRequest, RunID: r.id, SessionID: l.id, Approval: &req})
		}
	}
	if r != nil && r.origin == origin && route != nil {
		r.route.attach(route)
	}
	return out
}

// apply writes c to the store; the model calls it carries are counted
// once committed (with the store's transaction when it persists,
// recorded on their own when it keeps sessions in memory).
func (m *Manager) apply(l *lane, c change) error {
	id := l.id
	var err error
	if js, ok := m.store.(*jsBackend); ok {
		err = js.applyClaimed(l.claim, id, c) // only under this lane's own claim
	} else {
		err = m.store.apply(id, c)
	}
	if err != nil {
		return err
	}
	if len(c.usage) > 0 && m.opts.Ledger != nil {
		if m.opts.Persist || m.opts.Cluster != nil { // written with the change
			m.opts.Ledger.Committed(c.usage)
		} else if err := m.opts.Ledger.Record(context.Background(), c.usage); err != nil && !errors.Is(err, usage.ErrNotWritable) {
			m.log.Warn("usage ledger", "session_id", id, "err", err)
		}
	}
	return nil
}

// input is the messages a run of in starts with: the client's function
// results, or its user message. The first carries the run's id.
func (m *Manager) input(runID string, in beamclaw.Inbound) []beamclaw.Message {
	now := m.clock.Now()
	if len(in.ToolResults) == 0 {
		return []beamclaw.Message{{ID: runID, Role: beamclaw.RoleUser, Content: in.Content, Attachments: in.Attachments, Time: now}}
	}
	out := make([]beamclaw.Message, len(in.ToolResults))
	for i, res := range in.ToolResults {
		out[i] = beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: res.ToolCallID, Name: res.Name, Content: res.Content, Time: now}
	}
	out[0].ID = runID
	return out
}
