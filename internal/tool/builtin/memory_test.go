package builtin_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/tool"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// owned keys the fakes' maps by agent and user, as the daemon's memory
// (memory_scope: user) keeps them apart.
func owned(agent, user string) string { return agent + "@" + user }

// memWorkspace is an in-memory builtin.Workspace.
type memWorkspace struct {
	shared bool // memory_scope: agent
	mu     sync.Mutex
	files  map[string]string // agent/file
	daily  map[string]string // agent/YYYY-MM-DD
}

func newMemWorkspace() *memWorkspace {
	return &memWorkspace{files: map[string]string{}, daily: map[string]string{}}
}

func (m *memWorkspace) ReadFile(agent, user, file string) (string, error) {
	agent = owned(agent, user)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.files[agent+"/"+file], nil
}

func (m *memWorkspace) WriteFile(agent, user, file, content string) error {
	agent = owned(agent, user)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[agent+"/"+file] = content
	return nil
}

func (m *memWorkspace) AppendFile(agent, user, file, content string) error {
	agent = owned(agent, user)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[agent+"/"+file] += content + "\n"
	return nil
}

func (m *memWorkspace) AppendDaily(agent, user string, date time.Time, text string) error {
	agent = owned(agent, user)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.daily[agent+"/"+date.Format(time.DateOnly)] += text + "\n"
	return nil
}

func (m *memWorkspace) ReadDaily(agent, user string, date time.Time) (string, error) {
	agent = owned(agent, user)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.daily[agent+"/"+date.Format(time.DateOnly)], nil
}

func (m *memWorkspace) SharedMemory(string) bool { return m.shared }

func (m *memWorkspace) ListDaily(agent, user string) ([]string, error) {
	agent = owned(agent, user)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.daily {
		if d, ok := strings.CutPrefix(k, agent+"/"); ok {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out, nil
}

// substringSearch finds MEMORY.md lines containing the query.
type substringSearch struct{ ws *memWorkspace }

func (s substringSearch) Search(_ context.Context, agent, user, query string, limit int) ([]builtin.Hit, error) {
	agent = owned(agent, user)
	if query == "explode" {
		return nil, errors.New("index unavailable")
	}
	s.ws.mu.Lock()
	text := s.ws.files[agent+"/MEMORY.md"]
	s.ws.mu.Unlock()
	var hits []builtin.Hit
	for line := range strings.Lines(text) {
		if strings.Contains(strings.ToLower(line), strings.ToLower(query)) && len(hits) < limit {
			hits = append(hits, builtin.Hit{Source: "MEMORY.md", Text: line, Score: 1})
		}
	}
	return hits, nil
}

func TestWorkspaceMemory(t *testing.T) {
	ws := newMemWorkspace()
	now := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	tl := builtin.NewWorkspaceMemory(builtin.MemoryOptions{Workspace: ws, Search: substringSearch{ws}, Clock: clock.NewFake(now)})
	steps := []struct {
		name  string
		args  map[string]any
		want  string
		isErr bool
	}{
		{"read empty", map[string]any{"action": "read"}, "[empty]", false},
		{"append", map[string]any{"action": "append", "content": "User likes tea."}, "appended to MEMORY.md", false},
		{"append again", map[string]any{"action": "append", "content": "User's cat is Miso."}, "appended to MEMORY.md", false},
		{"read", map[string]any{"action": "read"}, "User likes tea.\nUser's cat is Miso.\n", false},
		{"search", map[string]any{"action": "search", "query": "cat"}, "1. [MEMORY.md, score 1.00]\nUser's cat is Miso.", false},
		{"search miss", map[string]any{"action": "search", "query": "dog"}, `No memories match "dog".`, false},
		{"search failure", map[string]any{"action": "search", "query": "explode"}, "workspace_memory search: index unavailable", true},
		{"search needs query", map[string]any{"action": "search"}, "query is required", true},
		{"replace", map[string]any{"action": "replace", "content": "Fresh start."}, "replaced MEMORY.md", false},
		{"read replaced", map[string]any{"action": "read"}, "Fresh start.", false},
		{"append_daily today", map[string]any{"action": "append_daily", "content": "Shipped v1."}, "appended to the daily log of 2026-03-14", false},
		{"append_daily dated", map[string]any{"action": "append_daily", "content": "Planned v1.", "date": "2026-03-13"}, "appended to the daily log of 2026-03-13", false},
		{"read_daily today", map[string]any{"action": "read_daily"}, "Shipped v1.\n", false},
		{"list_daily", map[string]any{"action": "list_daily"}, "2026-03-13\n2026-03-14", false},
		{"bad date", map[string]any{"action": "read_daily", "date": "14/03/2026"}, `date "14/03/2026": want YYYY-MM-DD`, true},
		{"update_bootstrap", map[string]any{"action": "update_bootstrap", "file": "user", "content": "Name: Ada"}, "updated USER.md", false},
		{"read_bootstrap", map[string]any{"action": "read_bootstrap", "file": "USER.md"}, "Name: Ada", false},
		{"bootstrap path refused", map[string]any{"action": "read_bootstrap", "file": "../MEMORY.md"}, "want one of IDENTITY.md", true},
		{"bootstrap MEMORY refused", map[string]any{"action": "update_bootstrap", "file": "MEMORY.md", "content": "x"}, "want one of", true},
		{"bootstrap needs file", map[string]any{"action": "read_bootstrap"}, "file is required", true},
		{"append needs content", map[string]any{"action": "append"}, "content is required", true},
		{"unknown action", map[string]any{"action": "delete"}, `argument "action": must be one of`, true},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res := call(t, t.Context(), tl, "", st.args)
			if res.IsError != st.isErr || !strings.Contains(res.Content, st.want) {
				t.Errorf("result = %+v, want error=%v containing %q", res, st.isErr, st.want)
			}
		})
	}
	if got, _ := ws.ReadFile("other", "local:ada", "MEMORY.md"); got != "" {
		t.Errorf("another agent's memory changed: %q", got)
	}
	if got, _ := ws.ReadFile("main", "local:bob", "MEMORY.md"); got != "" {
		t.Errorf("another user's memory changed: %q", got)
	}
	if got, _ := ws.ReadFile("main", "local:ada", "MEMORY.md"); got != "Fresh start." {
		t.Errorf("the run's user's MEMORY.md = %q, want the tool's writes (the run's user reaches the store)", got)
	}
}

func TestWorkspaceMemoryWithoutSearch(t *testing.T) {
	tl := builtin.NewWorkspaceMemory(builtin.MemoryOptions{Workspace: newMemWorkspace()})
	if got := mustErr(t, call(t, t.Context(), tl, "", map[string]any{"action": "search", "query": "x"})); !strings.Contains(got, "memory search is not configured") {
		t.Errorf("error = %q", got)
	}
}

// mapNotes is an in-memory builtin.Notes.
type mapNotes struct {
	mu    sync.Mutex
	notes map[string]string // agent/key
}

func (n *mapNotes) Remember(_ context.Context, agent, user, key, content string) error {
	agent = owned(agent, user)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes[agent+"/"+key] = content
	return nil
}

func (n *mapNotes) Recall(_ context.Context, agent, user, query string, limit int) ([]builtin.Hit, error) {
	agent = owned(agent, user)
	n.mu.Lock()
	defer n.mu.Unlock()
	var hits []builtin.Hit
	for k, v := range n.notes {
		key, ok := strings.CutPrefix(k, agent+"/")
		if ok && strings.Contains(v, query) && len(hits) < limit {
			hits = append(hits, builtin.Hit{Source: key, Text: v, Score: 1})
		}
	}
	return hits, nil
}

func (n *mapNotes) Forget(_ context.Context, agent, user, key string) error {
	agent = owned(agent, user)
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.notes, agent+"/"+key)
	return nil
}

func TestWorkspaceMemoryNotes(t *testing.T) {
	notes := &mapNotes{notes: map[string]string{}}
	tl := builtin.NewWorkspaceMemory(builtin.MemoryOptions{Workspace: newMemWorkspace(), Notes: notes})
	steps := []struct {
		name  string
		args  map[string]any
		want  string
		isErr bool
	}{
		{"remember", map[string]any{"action": "remember", "key": "user.tz", "content": "Europe/Lisbon"}, "remembered user.tz", false},
		{"recall", map[string]any{"action": "recall", "query": "Lisbon"}, "- user.tz: Europe/Lisbon", false},
		{"remember needs key", map[string]any{"action": "remember", "content": "x"}, "key is required", true},
		{"remember needs content", map[string]any{"action": "remember", "key": "k"}, "content is required", true},
		{"forget", map[string]any{"action": "forget", "key": "user.tz"}, "forgot user.tz", false},
		{"recall after forget", map[string]any{"action": "recall", "query": "Lisbon"}, "No notes match.", false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res := call(t, t.Context(), tl, "", st.args)
			if res.IsError != st.isErr || !strings.Contains(res.Content, st.want) {
				t.Errorf("result = %+v, want error=%v containing %q", res, st.isErr, st.want)
			}
		})
	}
	bare := builtin.NewWorkspaceMemory(builtin.MemoryOptions{Workspace: newMemWorkspace()})
	if got := mustErr(t, call(t, t.Context(), bare, "", map[string]any{"action": "recall", "query": "x"})); !strings.Contains(got, "keyed notes are not configured") {
		t.Errorf("error = %q", got)
	}
}

// Under memory_scope: user a run with a remote channel's trust cannot
// change the files every user's prompt carries; its user's own USER.md,
// a local run and memory_scope: agent can.
func TestRemoteRunsCannotRewriteTheAgentsFiles(t *testing.T) {
	for _, tc := range []struct {
		name           string
		channel, trust beamclaw.Channel
		shared         bool
		file, content  string
		refused        bool
	}{
		{"remote SOUL.md", beamclaw.ChannelTelegram, "", false, "SOUL.md", "be rude", true},
		{"remote IDENTITY.md", beamclaw.ChannelHTTP, "", false, "IDENTITY.md", "Name: X", true},
		{"remote TOOLS.md", beamclaw.ChannelWS, "", false, "TOOLS.md", "x", true},
		{"remote AGENTS.md", beamclaw.ChannelA2A, "", false, "AGENTS.md", "x", true},
		{"remote BOOTSTRAP.md with text", beamclaw.ChannelTelegram, "", false, "BOOTSTRAP.md", "again", true},
		{"a job made remotely", beamclaw.ChannelScheduler, beamclaw.ChannelTelegram, false, "SOUL.md", "x", true},
		{"remote USER.md (the user's own)", beamclaw.ChannelTelegram, "", false, "USER.md", "Name: Ada", false},
		{"the terminal", beamclaw.ChannelTUI, "", false, "SOUL.md", "calm", false},
		{"memory_scope: agent", beamclaw.ChannelTelegram, "", true, "SOUL.md", "calm", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := newMemWorkspace()
			ws.shared = tc.shared
			tl := builtin.NewWorkspaceMemory(builtin.MemoryOptions{Workspace: ws})
			args, _ := json.Marshal(map[string]any{"action": "update_bootstrap", "file": tc.file, "content": tc.content})
			res := tool.New(tool.Options{}).Run(t.Context(), tl, beamclaw.Invocation{Args: args, CallID: "c1", AgentID: "main",
				UserID: "tg:1", Channel: tc.channel, Trust: tc.trust, Autonomy: beamclaw.Full})
			if res.IsError != tc.refused || (tc.refused && !strings.Contains(res.Content, "every user's prompt")) {
				t.Errorf("result %+v, want refused=%v", res, tc.refused)
			}
		})
	}
}
