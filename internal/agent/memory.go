package agent

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/memory"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
)

// maxOwnIndexes bounds the users' memory indexes kept in memory; past
// it one is dropped, and rebuilt from its files when next searched.
const maxOwnIndexes = 256

// ownerKey keys the indexes and notes of one memory owner: the agent, or
// the agent and one of its users ('@' is in no agent name).
func ownerKey(agentID, user string) string {
	if user == "" {
		return agentID
	}
	return agentID + "@" + workspace.UserKey(user)
}

// index returns a memory index refreshed from its files: the agent's
// whole shared memory (user "", memory_scope: agent), or under
// memory_scope: user the agent's shared files alone (shared, without
// its daily logs, which may hold other users' words) or user's own
// memory.
func (a *Runtime) index(ctx context.Context, agentID, user string, sharedFiles bool) (*memory.Workspace, error) {
	dir, err := a.ws.Dir(agentID)
	if err != nil {
		return nil, err
	}
	key, opts := ownerKey(agentID, user), a.memOpts
	switch {
	case sharedFiles:
		key += "\x00files"
		opts.Search.DailyLogLookback = 0
	case user != "":
		if dir, err = a.ws.UserDir(agentID, user); err != nil {
			return nil, err
		}
		opts.Search.WorkspaceFiles = []string{workspace.FileMemory, workspace.FileUser}
	}
	a.mu.Lock()
	w, ok := a.indexes[key]
	if !ok {
		if user != "" && len(a.indexes) >= maxOwnIndexes {
			for k := range a.indexes {
				if strings.Contains(k, "@") {
					delete(a.indexes, k)
					break
				}
			}
		}
		w = memory.NewWorkspace(memory.NewIndex(opts.Search, a.embedder), dir, opts, a.log)
		a.indexes[key] = w
	}
	a.mu.Unlock()
	if _, err := w.Refresh(ctx); err != nil {
		a.log.Warn("memory refresh", "agent", agentID, "err", err)
	}
	return w, nil
}

// Search implements builtin.MemorySearch: the agent's shared memory, or
// under memory_scope: user the agent's shared files (MEMORY.md and the
// configured workspace_files, not its daily logs) and the user's own
// memory and notes.
func (a *Runtime) Search(ctx context.Context, agentID, userID, query string, limit int) ([]builtin.Hit, error) {
	user, nobody := a.memoryUser(agentID, userID)
	w, err := a.index(ctx, agentID, "", user != "" || nobody != nil)
	if err != nil {
		return nil, err
	}
	q := memory.Query{Text: query, Limit: limit}
	res, err := w.Index().Search(ctx, q)
	if err != nil {
		return nil, err
	}
	hits := make([]builtin.Hit, 0, len(res.Hits)+1)
	for _, h := range res.Hits {
		hits = append(hits, builtin.Hit{Source: h.Source, Text: h.Text, Score: h.Score})
	}
	if user != "" {
		own, err := a.index(ctx, agentID, user, false)
		if err != nil {
			return nil, err
		}
		ores, err := own.Index().Search(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, h := range ores.Hits {
			hits = append(hits, builtin.Hit{Source: "this user's " + h.Source, Text: h.Text, Score: h.Score})
		}
		res.Degraded, res.Reason = res.Degraded || ores.Degraded, cmp.Or(res.Reason, ores.Reason)
	}
	if b, err := a.notes(ctx, agentID, user); err == nil && nobody == nil && b != nil {
		if nres, err := b.Search(ctx, q); err == nil {
			for _, h := range nres.Hits {
				hits = append(hits, builtin.Hit{Source: "note " + h.Source, Text: h.Text, Score: h.Score})
			}
		}
	}
	slices.SortStableFunc(hits, func(x, y builtin.Hit) int { return cmp.Compare(y.Score, x.Score) })
	if len(hits) > limit && limit > 0 {
		hits = hits[:limit]
	}
	if res.Degraded && len(hits) > 0 {
		hits[0].Text = "(" + res.Reason + ")\n" + hits[0].Text
	}
	return hits, nil
}

// notes returns the keyed-note backend (memory.backend) of the agent
// (user "") or of one of its users; nil (no error) for a user who never
// kept a note, so that reading costs no write for every new user.
func (a *Runtime) notes(ctx context.Context, agentID, user string) (memory.Backend, error) {
	return a.notesOf(ctx, agentID, user, false)
}

// notesOf is notes; create opens a user's backend even before their
// first note (remember). Past maxOwnIndexes users a bbolt backend is
// dropped and reloaded when next needed; in-memory ones are kept.
func (a *Runtime) notesOf(ctx context.Context, agentID, user string, create bool) (memory.Backend, error) {
	if _, err := a.ws.Dir(agentID); err != nil {
		return nil, err
	}
	key := ownerKey(agentID, user)
	a.mu.Lock()
	defer a.mu.Unlock()
	if b, ok := a.backends[key]; ok {
		return b, nil
	}
	if user != "" && !create && !a.hasOwn(agentID, user) {
		return nil, nil // no memory of their own yet
	}
	if a.memOpts.Backend == memory.BackendBolt && len(a.backends) >= maxOwnIndexes {
		for k := range a.backends {
			if strings.Contains(k, "@") {
				delete(a.backends, k)
				break
			}
		}
	}
	var b memory.Backend
	var err error
	if a.memOpts.Backend == memory.BackendBolt {
		b, err = memory.OpenBolt(ctx, a.db, "", key, a.memOpts, a.embedder)
	} else {
		b, err = memory.NewMemory(key, a.memOpts, a.embedder)
	}
	if err != nil {
		return nil, fmt.Errorf("memory of agent %s: %w", agentID, err)
	}
	a.backends[key] = b
	return b, nil
}

// Remember implements builtin.Notes.
func (a *Runtime) Remember(ctx context.Context, agentID, userID, key, content string) error {
	user, err := a.memoryUser(agentID, userID)
	if err != nil {
		return err
	}
	b, err := a.notesOf(ctx, agentID, user, true)
	if err != nil {
		return err
	}
	if user != "" { // the user's directory names them (users list, export)
		if err := a.ws.EnsureUser(agentID, user); err != nil {
			return err
		}
	}
	return b.Store(ctx, key, content, memory.CategoryCore)
}

// Recall implements builtin.Notes: the best-matching notes.
func (a *Runtime) Recall(ctx context.Context, agentID, userID, query string, limit int) ([]builtin.Hit, error) {
	user, err := a.memoryUser(agentID, userID)
	if err != nil {
		return nil, nil // nobody's notes: none
	}
	b, err := a.notes(ctx, agentID, user)
	if err != nil || b == nil {
		return nil, err
	}
	entries, err := b.Recall(ctx, query, limit, "")
	if err != nil {
		return nil, err
	}
	hits := make([]builtin.Hit, 0, len(entries))
	for _, e := range entries {
		hits = append(hits, builtin.Hit{Source: e.Key, Text: e.Value, Score: 1})
	}
	return hits, nil
}

// Forget implements builtin.Notes.
func (a *Runtime) Forget(ctx context.Context, agentID, userID, key string) error {
	user, err := a.memoryUser(agentID, userID)
	if err != nil {
		return err
	}
	b, err := a.notes(ctx, agentID, user)
	if err != nil || b == nil {
		return err // nothing to forget
	}
	return b.Forget(ctx, key)
}

// hasOwn reports whether the agent keeps memory of the user's own (their
// directory exists: a write or a note made it).
func (a *Runtime) hasOwn(agentID, user string) bool {
	dir, err := a.ws.UserDir(agentID, user)
	if err != nil {
		return false
	}
	_, err = os.Stat(dir)
	return err == nil
}
