package daemon

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
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/memory"
	"github.com/beamclaw/beamclaw-go/internal/skill"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/skills"
)

// agents ties the workspaces, skills and memory of every agent together
// for the loop (system prompt) and the workspace_memory tool.
type agents struct {
	ws       *workspace.Store
	paths    config.Paths
	memOpts  memory.Options
	embedder beamclaw.Embedder
	log      *slog.Logger
	autoCtx  int // core.agentic_loop.auto_context_limit when auto_context is on, else 0

	db *store.DB // for memory.backend: bbolt

	skills       *skill.Cache
	allowFlagged []string // core.skills.allow_flagged

	mu       sync.Mutex
	indexes  map[string]*memory.Workspace
	backends map[string]memory.Backend // keyed notes, per agent
	catalogs map[string]catalogAt      // skill catalogs, per agent
}

// catalogAt is a skill catalog and when it was discovered.
type catalogAt struct {
	cat skill.Catalog
	at  time.Time
}

// skillsFresh is how long a discovered skill catalog is reused: a turn
// costs no file system walk, and an installed or edited skill shows up
// within this time.
const skillsFresh = 2 * time.Second

func newAgents(cfg *config.Config, paths config.Paths, db *store.DB, emb beamclaw.Embedder, log *slog.Logger) *agents {
	mo := memory.DefaultOptions()
	s := cfg.Memory.Search
	mo.Search = memory.SearchOptions{
		VectorWeight: s.VectorWeight, BM25Weight: s.BM25Weight, MinScore: s.MinScore,
		DefaultLimit: s.DefaultLimit, ChunkSize: s.ChunkSize, ChunkOverlap: s.ChunkOverlap,
		WorkspaceFiles: s.WorkspaceFiles, DailyLogLookback: s.DailyLogLookback,
	}
	mo.Backend = cfg.Memory.Backend
	mo.CacheTTL = time.Duration(cfg.Memory.Embedding.CacheTTLSeconds) * time.Second
	a := &agents{ws: workspace.New(paths.AgentsDir, nil), paths: paths, memOpts: mo, embedder: emb,
		log: log, db: db, indexes: map[string]*memory.Workspace{}, backends: map[string]memory.Backend{},
		skills: skill.NewCache(), catalogs: map[string]catalogAt{}, allowFlagged: cfg.Core.Skills.AllowFlagged}
	if cfg.Core.AgenticLoop.AutoContext {
		a.autoCtx = cfg.Core.AgenticLoop.AutoContextLimit
	}
	return a
}

// exists reports whether an agent has a workspace (the default agent is
// created on demand).
func (a *agents) exists(name string) bool {
	ok, err := a.ws.Exists(name)
	return err == nil && ok
}

func (a *agents) list() []string {
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

// prompt is the loop's PromptFunc: workspace files, eligible skills, and
// (with auto_context) the memory that best matches the run's input.
func (a *agents) prompt(ctx context.Context, agentID, input string) (string, error) {
	cat, err := a.catalog(agentID)
	if err != nil {
		return "", err
	}
	extras := workspace.PromptExtras{Skills: skill.PromptSection(cat.Skills)}
	if a.autoCtx > 0 && input != "" {
		hits, err := a.Search(ctx, agentID, input, a.autoCtx)
		if err != nil {
			a.log.Warn("auto context", "agent", agentID, "err", err)
		}
		for _, h := range hits {
			extras.Memory = append(extras.Memory, workspace.Snippet{Source: h.Source, Text: h.Text})
		}
	}
	return a.ws.SystemPrompt(agentID, extras)
}

// catalog returns the agent's skills: bundled, global and its own.
func (a *agents) catalog(agentID string) (skill.Catalog, error) {
	now := time.Now()
	a.mu.Lock()
	c, ok := a.catalogs[agentID]
	a.mu.Unlock()
	if ok && now.Sub(c.at) < skillsFresh {
		return c.cat, nil
	}
	cat, err := a.skills.Discover(skill.Options{
		Bundled:      skills.FS,
		GlobalDir:    a.paths.SkillsDir,
		AgentDir:     filepath.Join(a.paths.AgentDir(agentID), "skills"),
		AllowFlagged: a.allowFlagged,
	})
	if err != nil {
		return skill.Catalog{}, fmt.Errorf("skills: %w", err)
	}
	a.mu.Lock()
	a.catalogs[agentID] = catalogAt{cat: cat, at: now}
	a.mu.Unlock()
	return cat, nil
}

// SkillText implements builtin.SkillReader: the SKILL.md of a skill the
// agent's prompt lists.
func (a *agents) SkillText(_ context.Context, agentID, name string) (string, error) {
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

// flush is the loop's MemoryFlush: notes from the hidden pre-compaction
// turn go to today's daily log, where memory search finds them.
func (a *agents) flush(_ context.Context, agentID, notes string) error {
	return a.ws.AppendDaily(agentID, "", "Saved before the conversation was compacted:\n"+notes)
}

// index returns the agent's memory index, refreshed from its files.
func (a *agents) index(ctx context.Context, agentID string) (*memory.Workspace, error) {
	dir, err := a.ws.Dir(agentID)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	w, ok := a.indexes[agentID]
	if !ok {
		w = memory.NewWorkspace(memory.NewIndex(a.memOpts.Search, a.embedder), dir, a.memOpts, a.log)
		a.indexes[agentID] = w
	}
	a.mu.Unlock()
	if _, err := w.Refresh(ctx); err != nil {
		a.log.Warn("memory refresh", "agent", agentID, "err", err)
	}
	return w, nil
}

// Search implements builtin.MemorySearch over the agent's workspace.
func (a *agents) Search(ctx context.Context, agentID, query string, limit int) ([]builtin.Hit, error) {
	w, err := a.index(ctx, agentID)
	if err != nil {
		return nil, err
	}
	res, err := w.Index().Search(ctx, memory.Query{Text: query, Limit: limit})
	if err != nil {
		return nil, err
	}
	hits := make([]builtin.Hit, 0, len(res.Hits)+1)
	for _, h := range res.Hits {
		hits = append(hits, builtin.Hit{Source: h.Source, Text: h.Text, Score: h.Score})
	}
	if b, err := a.notes(ctx, agentID); err == nil {
		if nres, err := b.Search(ctx, memory.Query{Text: query, Limit: limit}); err == nil {
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

// notes returns the agent's keyed-note backend (memory.backend).
func (a *agents) notes(ctx context.Context, agentID string) (memory.Backend, error) {
	if _, err := a.ws.Dir(agentID); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if b, ok := a.backends[agentID]; ok {
		return b, nil
	}
	var b memory.Backend
	var err error
	if a.memOpts.Backend == memory.BackendBolt {
		b, err = memory.OpenBolt(ctx, a.db, "", agentID, a.memOpts, a.embedder)
	} else {
		b, err = memory.NewMemory(agentID, a.memOpts, a.embedder)
	}
	if err != nil {
		return nil, fmt.Errorf("memory of agent %s: %w", agentID, err)
	}
	a.backends[agentID] = b
	return b, nil
}

// Remember implements builtin.Notes.
func (a *agents) Remember(ctx context.Context, agentID, key, content string) error {
	b, err := a.notes(ctx, agentID)
	if err != nil {
		return err
	}
	return b.Store(ctx, key, content, memory.CategoryCore)
}

// Recall implements builtin.Notes: the best-matching notes.
func (a *agents) Recall(ctx context.Context, agentID, query string, limit int) ([]builtin.Hit, error) {
	b, err := a.notes(ctx, agentID)
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
func (a *agents) Forget(ctx context.Context, agentID, key string) error {
	b, err := a.notes(ctx, agentID)
	if err != nil {
		return err
	}
	return b.Forget(ctx, key)
}

// workspaceFiles adapts the workspace store to builtin.Workspace.
type workspaceFiles struct{ ws *workspace.Store }

func (w workspaceFiles) ReadFile(agent, file string) (string, error) {
	return w.ws.ReadFile(agent, file)
}
func (w workspaceFiles) WriteFile(agent, file, content string) error {
	return w.ws.WriteFile(agent, file, content)
}
func (w workspaceFiles) AppendFile(agent, file, content string) error {
	return w.ws.AppendFile(agent, file, content)
}
func (w workspaceFiles) AppendDaily(agent string, date time.Time, text string) error {
	return w.ws.AppendDaily(agent, date.Format(workspace.DateLayout), text)
}
func (w workspaceFiles) ReadDaily(agent string, date time.Time) (string, error) {
	return w.ws.ReadDaily(agent, date.Format(workspace.DateLayout))
}
func (w workspaceFiles) ListDaily(agent string) ([]string, error) { return w.ws.ListDaily(agent) }
