package agent

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/beamclaw/beamclaw-go/internal/memory"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
)

// UserMemory is what one agent keeps of one user's own (memory_scope:
// user): their files and daily logs and their keyed notes.
type UserMemory struct {
	Agent string
	workspace.UserMemory
	Notes []memory.Entry
}

// MemoryUsers returns, for every user with memory of their own, the
// agents that keep it.
func (a *Runtime) MemoryUsers() (map[string][]string, error) {
	out := map[string][]string{}
	for _, agentID := range a.List() {
		users, err := a.ws.Users(agentID)
		if err != nil {
			return nil, err
		}
		for _, u := range users {
			out[u] = append(out[u], agentID)
		}
	}
	return out, nil
}

// ExportMemory returns the user's own memory in every agent that keeps
// some.
func (a *Runtime) ExportMemory(ctx context.Context, user string) ([]UserMemory, error) {
	var out []UserMemory
	for _, agentID := range a.List() {
		if !a.hasOwn(agentID, user) { // a stat, not a read of every user's ID
			continue
		}
		m := UserMemory{Agent: agentID}
		var err error
		if m.UserMemory, err = a.ws.ExportUser(agentID, user); err != nil {
			return nil, err
		}
		b, err := a.notes(ctx, agentID, user)
		if err != nil {
			return nil, err
		}
		if b != nil {
			if m.Notes, err = b.Recall(ctx, "", math.MaxInt32, memory.All); err != nil {
				return nil, fmt.Errorf("notes of %s at agent %s: %w", user, agentID, err)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// ForgetMemory removes the user's own memory (files, daily logs, notes,
// their search index) from every agent; it returns the agents that had
// some.
func (a *Runtime) ForgetMemory(ctx context.Context, user string) ([]string, error) {
	if user == "" {
		return nil, errors.New("no user given")
	}
	var forgot []string
	var errs []error
	for _, agentID := range a.List() {
		had, err := a.ForgetMemoryAt(ctx, agentID, user)
		if err != nil {
			errs = append(errs, err)
		}
		if had {
			forgot = append(forgot, agentID)
		}
	}
	return forgot, errors.Join(errs...)
}

// ForgetMemoryAt removes the user's own memory at one agent; it reports
// whether there was any.
func (a *Runtime) ForgetMemoryAt(_ context.Context, agentID, user string) (bool, error) {
	if user == "" {
		return false, errors.New("no user given") // never the agent's shared memory
	}
	key := ownerKey(agentID, user)
	// Held across the drop: a search meanwhile must not reopen the notes
	// about to go (and keep serving them).
	a.mu.Lock()
	b, open := a.backends[key]
	delete(a.backends, key)
	delete(a.indexes, key)
	had := open && b != nil
	var err error
	if a.memOpts.Backend == memory.BackendBolt && a.db != nil {
		var dropped bool
		dropped, err = memory.DropBolt(a.db, "", key)
		had = had || dropped
	}
	a.mu.Unlock()
	if err != nil {
		return had, err
	}
	removed, err := a.ws.ForgetUser(agentID, user)
	return had || removed, err
}
