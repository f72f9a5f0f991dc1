package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/cluster"
)

// Threads keep the conversations of clients that send their whole
// conversation with every message (chat UIs on the OpenAI API) apart from
// each other and from the user's default session. Each conversation is a
// session of its own (a thread), found by the key of the client's copy:
// after every answer the edge names the key the client's next request
// will carry (MarkTurn), and the thread records where in its history that
// copy ends, so that a regenerate or an edit cuts the history back there
// instead of storing the turn twice.

// maxMarks bounds the marks a thread record keeps (its latest turns).
const maxMarks = 200

// mark is the end of one answered turn of a thread: the key of the
// client's copy up to and including the answer, and the history length.
type mark struct {
	Key string `json:"key"`
	Len int    `json:"len"`
}

// ThreadID is the session id of thread of a user with an agent.
func ThreadID(userID, agentID string, channel beamclaw.Channel, perChannel bool, thread string) string {
	if thread == "" {
		return ID(userID, agentID, channel, perChannel)
	}
	return ID(userID, agentID+"\x00thread\x00"+thread, channel, perChannel)
}

// threadKey is a thread index key: user, agent, and the client's key.
func threadKey(userID, agentID, key string) string {
	return userID + "\x00" + agentID + "\x00" + key
}

// threadPrefix is the prefix of every index key of a user with an agent.
func threadPrefix(userID, agentID string) string { return userID + "\x00" + agentID + "\x00" }

// resolveThread decides which session in goes to: the thread it names,
// the thread its transcript continues, a new thread, or the default
// session. A single new message (an empty transcript) starts a new thread
// only for a user whose client has sent whole conversations before;
// otherwise it goes to the default session, as a curl script expects.
func (m *Manager) resolveThread(in *beamclaw.Inbound) error {
	t := in.Transcript
	if t == nil || in.Session != "" {
		return nil
	}
	if len(t.Messages) == 0 { // only the new message: it is appended
		in.Transcript = nil
		if in.Thread != "" {
			return nil
		}
		if len(in.Functions) > 0 { // a run that may stop at the client's calls: the conversation the results continue
			in.Thread = newThread()
			return nil
		}
		used, err := m.store.threaded(threadPrefix(in.UserID, in.AgentID))
		if used {
			in.Thread = newThread()
		}
		return err
	}
	if in.Thread != "" {
		return nil
	}
	thread, ok, err := m.store.thread(threadKey(in.UserID, in.AgentID, t.Key))
	if err != nil {
		return err
	}
	if !ok {
		thread = newThread()
	}
	in.Thread = thread
	return nil
}

func newThread() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "c-" + hex.EncodeToString(b[:])
}

// transcriptHistory is the history a thread should hold before the run's
// message: its own history cut at the mark the client's copy ends at, or
// the client's copy itself. same reports that the history already
// matches (nothing to rewrite). The caller holds l.mu.
func (l *lane) transcriptHistory(t *beamclaw.Transcript) (hist []beamclaw.Message, marks []mark, same bool) {
	if len(t.Messages) == 0 && len(l.history) == 0 {
		return nil, nil, true
	}
	for i := len(l.rec.Marks) - 1; i >= 0; i-- {
		mk := l.rec.Marks[i]
		if mk.Key != t.Key || mk.Len > len(l.history) {
			continue
		}
		if mk.Len == len(l.history) {
			return nil, nil, true
		}
		kept := slices.DeleteFunc(slices.Clone(l.rec.Marks), func(x mark) bool { return x.Len > mk.Len })
		return slices.Clone(l.history[:mk.Len]), kept, false
	}
	now := l.m.clock.Now()
	hist = make([]beamclaw.Message, 0, len(t.Messages))
	for _, msg := range t.Messages {
		if msg.Time.IsZero() { // a client's copy; a branch keeps its times
			msg.Time = now
		}
		hist = append(hist, msg)
	}
	return hist, nil, false
}

// endTurn remembers where run runID's answer ends the history, for the
// MarkTurn that follows it. The caller holds l.mu.
func (l *lane) endTurn(runID string) {
	if l.ends == nil || len(l.ends) >= 8 {
		l.ends = make(map[string]int) // only the latest runs are marked
	}
	l.ends[runID] = len(l.history)
}

// MarkTurn records that after run runID of session sessionID the client
// holds a copy with key: its next message (or a regenerate of a later
// turn) finds this thread and this point in it. Sessions that are not
// threads, and runs no longer remembered, are left alone.
func (m *Manager) MarkTurn(ctx context.Context, sessionID, runID, key string) error {
	if key == "" {
		return nil
	}
	l := m.liveLane(sessionID)
	if l == nil { // in a cluster, the session may live on the node that ran the turn
		if err := m.elsewhere(ctx, "session.MarkTurn", cluster.OwnerOp{Kind: cluster.OpMarkTurn, Session: sessionID, Run: runID, Key: key},
			"no such session live"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
			return err
		}
		return nil
	}
	return l.update(func(rec *record) (change, bool) {
		end, ok := l.ends[runID]
		if !ok || rec.Thread == "" || end > len(l.history) {
			return change{}, false
		}
		rec.Marks = append(slices.Clone(rec.Marks), mark{Key: key, Len: end})
		if n := len(rec.Marks); n > maxMarks {
			rec.Marks = rec.Marks[n-maxMarks:]
		}
		return change{index: map[string]string{threadKey(rec.UserID, rec.AgentID, key): rec.Thread}}, true
	}, func() {})
}
