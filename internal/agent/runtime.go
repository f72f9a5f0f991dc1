package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/memory"
	"github.com/beamclaw/beamclaw-go/internal/skill"
	"github.com/beamclaw/beamclaw-go/internal/store"
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
	catalogs map[string]catalogAt         // skill catalogs, per agent
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

// Workspaces is the agents' workspace store (the admin API's agent
// routes write through it, as the tools do).
func (a *Runtime) Workspaces() *workspace.Store { return a.ws }

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

// errNoUser refuses to keep what a run without a user learns under
// memory_scope: user: it would be nobody's, so everybody's.
var errNoUser = errors.New("this run has no user (a request without a user id, say), so nothing it learns is kept: memory here is each user's own (memory_scope: user)")

// memoryUser is whose own memory a run of userID at agentID uses: userID
// under memory_scope: user, "" (the agent's shared memory) under
// memory_scope: agent. A run without a user under memory_scope: user is
// errNoUser: it reads the agent's shared files only and writes nothing.
func (a *Runtime) memoryUser(agentID, userID string) (string, error) {
	switch {
	case a.shared[agentID]:
		return "", nil
	case userID == "":
		return "", errNoUser
	}
	return userID, nil
}

// Prompt is the loop's PromptFunc: workspace files, eligible skills, the
// user's own memory (memory_scope: user) and (with auto_context) the
// memory that best matches the run's input.
func (a *Runtime) Prompt(ctx context.Context, agentID, userID, input string) (stable, context string, err error) {
	c, err := a.discovered(agentID)
	if err != nil {
		return "", "", err
	}
	user, err := a.memoryUser(agentID, userID)
	extras := workspace.PromptExtras{Skills: c.section, User: user, Anonymous: errors.Is(err, errNoUser)}
	if a.autoCtx > 0 && input != "" {
		hits, err := a.Search(ctx, agentID, userID, input, a.autoCtx)
		if err != nil {
			a.log.Warn("auto context", "agent", agentID, "err", err)
		}
		for _, h := range hits {
			extras.Memory = append(extras.Memory, workspace.Snippet{Source: h.Source, Text: h.Text})
		}
	}
	p, err := a.ws.Prompt(agentID, extras)
	return p.Stable, p.Context, err
}

// SkillDirs are the directories an agent's own skills are written to,
// highest precedence first: its workspace's skills/, then the global
// skills directory (the sandbox saves scripts as skills there).
func (a *Runtime) SkillDirs(agentID string) []string {
	return []string{filepath.Join(a.agentsDir, agentID, "skills"), a.skillsDir}
}

// Catalog returns the agent's skills: bundled, global and its own, with
// their eligibility here (the admin API's skills route).
func (a *Runtime) Catalog(agentID string) (skill.Catalog, error) {
	if err := workspace.ValidName(agentID); err != nil {
		return skill.Catalog{}, err
	}
	return a.catalog(agentID)
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
	user, err := a.memoryUser(agentID, userID)
	if err != nil {
		return err
	}
	return a.ws.AppendDaily(agentID, user, "", "Saved before the conversation was compacted:\n"+notes)
}
