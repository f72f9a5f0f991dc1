package agent

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/memory"
	"github.com/beamclaw/beamclaw-go/internal/skill"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/skills"
)

// Options configure a Runtime. The daemon builds them from config.
type Options struct {
	AgentsDir string // $BEAMCLAW_HOME/agents: one workspace per agent
	SkillsDir string // $BEAMCLAW_HOME/skills: skills shared by every agent
	// Memory tunes memory search and names the keyed-note backend
	// (memory.backend, memory.search.*).
	Memory memory.Options
	// AutoContextLimit is how many memory hits go into the system prompt
	// (core.agentic_loop.auto_context_limit when auto_context is on); 0 = none.
	AutoContextLimit int
	// AllowFlagged names skills the security scan flagged that may still
	// be offered (core.skills.allow_flagged).
	AllowFlagged []string
	// SharedMemory names the agents whose memory is the agent's, shared by
	// all its users (core.agents.<name>.memory_scope: agent). Every other
	// agent keeps each user's daily logs, MEMORY.md, USER.md and notes
	// apart (memory_scope: user, the default).
	SharedMemory []string
	Embedder     beamclaw.Embedder // nil: keyword search only
	DB           *store.DB         // for memory.backend: bbolt
	Logger       *slog.Logger
	// Clock times the skill catalogs' reuse and dates the workspaces'
	// daily logs, and memory's when Memory.Clock is nil; defaults to
	// clock.System.
	Clock clock.Clock
}

// Runtime ties the workspaces, skills and memory of every agent together
// for the loop (system prompt, memory flush) and the tools (workspace
// memory, skill). It is safe for concurrent use.
type Runtime struct {
	ws                   *workspace.Store
	agentsDir, skillsDir string
	memOpts              memory.Options
	embedder             beamclaw.Embedder
	log                  *slog.Logger
	clock                clock.Clock
	autoCtx              int

	db *store.DB

	skills       *skill.Cache
	allowFlagged []string
	shared       map[string]bool // agents with memory_scope: agent

	mu       sync.Mutex
	indexes  map[string]*memory.Workspace // per memory owner (ownerKey)
	backends map[string]memory.Backend    // keyed notes, per memory owner
	catalogs map[string]catalogAt      // skill catalogs, per agent
}

// catalogAt is a skill catalog, its rendered prompt section and when it
// was discovered.
type catalogAt struct {
	cat     skill.Catalog
	section string // skill.PromptSection(cat.Skills), rendered once
	at      time.Time
}

// skillsFresh is how long a discovered skill catalog is reused: a turn
// costs no file system walk, and an installed or edited skill shows up
// within this time.
const skillsFresh = 2 * time.Second

// New returns the Runtime of the agents under opts.AgentsDir.
func New(opts Options) *Runtime {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Clock = clock.Or(opts.Clock)
	if opts.Memory.Clock == nil {
		opts.Memory.Clock = opts.Clock
	}
	shared := make(map[string]bool, len(opts.SharedMemory))
	for _, name := range opts.SharedMemory {
		shared[name] = true
	}
	return &Runtime{ws: workspace.New(opts.AgentsDir, opts.Clock), agentsDir: opts.AgentsDir, skillsDir: opts.SkillsDir, shared: shared,
		memOpts: opts.Memory, embedder: opts.Embedder, log: opts.Logger, clock: opts.Clock, db: opts.DB, autoCtx: opts.AutoContextLimit,
		indexes: map[string]*memory.Workspace{}, backends: map[string]memory.Backend{},
		skills: skill.NewCache(), catalogs: map[string]catalogAt{}, allowFlagged: opts.AllowFlagged}
}

// WorkspaceWatcher is the service that lets the prompts of unchanged
// workspaces skip their file checks (workspace.Watcher).
func (a *Runtime) WorkspaceWatcher() *workspace.Watcher { return a.ws.Watcher() }

// Heartbeat returns the agent's HEARTBEAT.md (an error wrapping
// fs.ErrNotExist when it has none).
func (a *Runtime) Heartbeat(_ context.Context, name string) (string, error) {
	return a.ws.ReadHeartbeat(name)
}

// Ensure creates the agent's workspace from the templates when it has
// none (the default agent exists from the first start).
func (a *Runtime) Ensure(name string) error { return a.ws.Ensure(name) }

// Exists reports whether an agent has a workspace.
func (a *Runtime) Exists(name string) bool {
	ok, err := a.ws.Exists(name)
	return err == nil && ok
}

// List names every agent with a workspace.
func (a *Runtime) List() []string {
	list, err := a.ws.List()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, ag := range list {
		out = append(out, ag.Name)
	}
	return out
}

// memoryUser is whose own memory a run of userID at agentID uses: userID
// under memory_scope: user, or "" (the agent's shared memory) under
// memory_scope: agent or for a run without a user.
func (a *Runtime) memoryUser(agentID, userID string) string {
	if a.shared[agentID] {
		return ""
	}
	return userID
}

// Prompt is the loop's PromptFunc: workspace files, eligible skills, the
// user's own memory (memory_scope: user) and (with auto_context) the
// memory that best matches the run's input.
func (a *Runtime) Prompt(ctx context.Context, agentID, userID, input string) (string, error) {
	c, err := a.discovered(agentID)
	if err != nil {
		return "", err
	}
	extras := workspace.PromptExtras{Skills: c.section, User: a.memoryUser(agentID, userID)}
	if a.autoCtx > 0 && input != "" {
		hits, err := a.Search(ctx, agentID, userID, input, a.autoCtx)
		if err != nil {
			a.log.Warn("auto context", "agent", agentID, "err", err)
		}
		for _, h := range hits {
			extras.Memory = append(extras.Memory, workspace.Snippet{Source: h.Source, Text: h.Text})
		}
	}
	return a.ws.SystemPrompt(agentID, extras)
}

// SkillDirs are the directories an agent's own skills are written to,
// highest precedence first: its workspace's skills/, then the global
// skills directory (the sandbox saves scripts as skills there).
func (a *Runtime) SkillDirs(agentID string) []string {
	return []string{filepath.Join(a.agentsDir, agentID, "skills"), a.skillsDir}
}

// catalog returns the agent's skills: bundled, global and its own.
func (a *Runtime) catalog(agentID string) (skill.Catalog, error) {
	c, err := a.discovered(agentID)
	return c.cat, err
}

// discovered returns the agent's skill catalog, discovered at most
// skillsFresh ago.
func (a *Runtime) discovered(agentID string) (catalogAt, error) {
	now := a.clock.Now()
	a.mu.Lock()
	c, ok := a.catalogs[agentID]
	a.mu.Unlock()
	if ok && now.Sub(c.at) < skillsFresh {
		return c, nil
	}
	cat, err := a.skills.Discover(skill.Options{
		Bundled:      skills.FS,
		GlobalDir:    a.skillsDir,
		AgentDir:     filepath.Join(a.agentsDir, agentID, "skills"),
		AllowFlagged: a.allowFlagged,
	})
	if err != nil {
		return catalogAt{}, fmt.Errorf("skills: %w", err)
	}
	c = catalogAt{cat: cat, section: skill.PromptSection(cat.Skills), at: now}
	a.mu.Lock()
	a.catalogs[agentID] = c
	a.mu.Unlock()
	return c, nil
}

// Skills are the skills the agent's prompt offers it (skill.InPrompt), for
// its A2A agent card.
func (a *Runtime) Skills(agentID string) ([]skill.Skill, error) {
	cat, err := a.catalog(agentID)
	if err != nil {
		return nil, err
	}
	var out []skill.Skill
	for _, s := range cat.Skills {
		if s.InPrompt() {
			out = append(out, s)
		}
	}
	return out, nil
}

// SkillText implements builtin.SkillReader: the SKILL.md of a skill the
// agent's prompt lists.
func (a *Runtime) SkillText(_ context.Context, agentID, name string) (string, error) {
	cat, err := a.catalog(agentID)
	if err != nil {
		return "", err
	}
	s, ok := cat.Get(name)
	switch {
	case !ok:
		return "", fmt.Errorf("no skill named %q", name)
	case len(s.Flags) > 0 && !s.Allowed:
		return "", fmt.Errorf("skill %q is held back by its security scan: %s", name, strings.Join(s.Flags, "; "))
	case !s.Status.Eligible:
		return "", fmt.Errorf("skill %q is not usable here: missing %s", name, strings.Join(s.Status.Missing, ", "))
	}
	return s.Content, nil
}

// Flush is the loop's MemoryFlush: notes from the hidden pre-compaction
// (or maintenance) turn go to today's daily log of the session's user
// (the agent's shared log under memory_scope: agent), where memory search
// finds them.
func (a *Runtime) Flush(_ context.Context, agentID, userID, notes string) error {
	return a.ws.AppendDaily(agentID, a.memoryUser(agentID, userID), "", "Saved before the conversation was compacted:\n"+notes)
}

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
	user := a.memoryUser(agentID, userID)
	w, err := a.index(ctx, agentID, "", user != "")
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
	if b, err := a.notes(ctx, agentID, user); err == nil {
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
// (user "") or of one of its users.
func (a *Runtime) notes(ctx context.Context, agentID, user string) (memory.Backend, error) {
	if _, err := a.ws.Dir(agentID); err != nil {
		return nil, err
	}
	key := ownerKey(agentID, user)
	a.mu.Lock()
	defer a.mu.Unlock()
	if b, ok := a.backends[key]; ok {
		return b, nil
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
	b, err := a.notes(ctx, agentID, a.memoryUser(agentID, userID))
	if err != nil {
		return err
	}
	return b.Store(ctx, key, content, memory.CategoryCore)
}

// Recall implements builtin.Notes: the best-matching notes.
func (a *Runtime) Recall(ctx context.Context, agentID, userID, query string, limit int) ([]builtin.Hit, error) {
	b, err := a.notes(ctx, agentID, a.memoryUser(agentID, userID))
	if err != nil {
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
	b, err := a.notes(ctx, agentID, a.memoryUser(agentID, userID))
	if err != nil {
		return err
	}
	return b.Forget(ctx, key)
}

// Files is the agents' workspace files as the workspace_memory tool
// reads and writes them (builtin.Workspace). Under memory_scope: user a
// run's USER.md and MEMORY.md writes and its daily logs are its user's
// own; reading USER.md or MEMORY.md gives the agent's shared file and,
// after it, the user's own.
func (a *Runtime) Files() builtin.Workspace { return workspaceFiles{a} }

// workspaceFiles adapts the workspace store to builtin.Workspace.
type workspaceFiles struct{ a *Runtime }

// own returns the user whose own copy of file a run of user at agent
// touches ("" for the agent's file).
func (w workspaceFiles) own(agent, user, file string) string {
	if !workspace.IsUserFile(file) {
		return ""
	}
	return w.a.memoryUser(agent, user)
}

func (w workspaceFiles) ReadFile(agent, user, file string) (string, error) {
	text, err := w.a.ws.ReadFile(agent, file)
	if beamclaw.KindOf(err) == beamclaw.KindNotFound {
		text, err = "", nil
	}
	owner := w.own(agent, user, file)
	if err != nil || owner == "" {
		return text, err
	}
	mine, err := w.a.ws.ReadUserFile(agent, owner, file)
	if err != nil || strings.TrimSpace(mine) == "" {
		return text, err
	}
	if strings.TrimSpace(text) != "" {
		text = strings.TrimRight(text, "\n") + "\n\n# This user's own " + file + " (only they see it)\n\n"
	}
	return text + mine, nil
}
func (w workspaceFiles) WriteFile(agent, user, file, content string) error {
	if owner := w.own(agent, user, file); owner != "" {
		return w.a.ws.WriteUserFile(agent, owner, file, content)
	}
	return w.a.ws.WriteFile(agent, file, content)
}
func (w workspaceFiles) AppendFile(agent, user, file, content string) error {
	if owner := w.own(agent, user, file); owner != "" {
		return w.a.ws.AppendUserFile(agent, owner, file, content)
	}
	return w.a.ws.AppendFile(agent, file, content)
}
func (w workspaceFiles) AppendDaily(agent, user string, date time.Time, text string) error {
	return w.a.ws.AppendDaily(agent, w.a.memoryUser(agent, user), date.Format(workspace.DateLayout), text)
}
func (w workspaceFiles) ReadDaily(agent, user string, date time.Time) (string, error) {
	return w.a.ws.ReadDaily(agent, w.a.memoryUser(agent, user), date.Format(workspace.DateLayout))
}
func (w workspaceFiles) ListDaily(agent, user string) ([]string, error) {
	return w.a.ws.ListDaily(agent, w.a.memoryUser(agent, user))
}
