package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Workspace is what workspace_memory needs of the agent workspaces; the
// daemon adapts internal/workspace to it. file is a bare file name such as
// "MEMORY.md" or "SOUL.md"; a missing file reads as "" without error.
// user is the run's user: the implementation decides (memory_scope)
// whether the memory read or written is that user's own or the agent's.
type Workspace interface {
	ReadFile(agent, user, file string) (string, error)
	WriteFile(agent, user, file, content string) error
	AppendFile(agent, user, file, content string) error
	AppendDaily(agent, user string, date time.Time, text string) error
	ReadDaily(agent, user string, date time.Time) (string, error)
	// ListDaily returns the dates (YYYY-MM-DD) that have a daily log.
	ListDaily(agent, user string) ([]string, error)
	// SharedMemory reports whether the agent's memory is one for all its
	// users (memory_scope: agent). Otherwise a remote run may not change
	// the files every user's prompt carries (IDENTITY.md, SOUL.md,
	// TOOLS.md, AGENTS.md): one user's words would reach every user.
	SharedMemory(agent string) bool
}

// Hit is one memory search result.
type Hit struct {
	Source string  // where the text comes from, e.g. "MEMORY.md" or "memory/2026-01-02.md"
	Text   string  // the matching chunk
	Score  float64 // higher is better
}

// MemorySearch is what workspace_memory needs of memory search; the
// daemon adapts internal/memory to it.
type MemorySearch interface {
	Search(ctx context.Context, agent, user, query string, limit int) ([]Hit, error)
}

// Notes is the agent's keyed memory (internal/memory's Backend, in memory
// or in bbolt per memory.backend) behind remember, recall and forget; the
// daemon adapts it.
type Notes interface {
	Remember(ctx context.Context, agent, user, key, content string) error
	Recall(ctx context.Context, agent, user, query string, limit int) ([]Hit, error)
	Forget(ctx context.Context, agent, user, key string) error
}

// MemoryOptions configure workspace_memory.
type MemoryOptions struct {
	Workspace Workspace    // required
	Search    MemorySearch // optional; without it "search" says so
	Notes     Notes        // optional; without it remember/recall/forget say so
	Clock     clock.Clock  // defaults to clock.System
	// SearchLimit is how many hits "search" returns (default 5).
	SearchLimit int
}

// BootstrapFiles are the workspace files read_bootstrap and
// update_bootstrap may touch.
var bootstrapFiles = []string{"IDENTITY.md", "SOUL.md", "USER.md", "TOOLS.md", "AGENTS.md", "BOOTSTRAP.md"}

const memoryFile = "MEMORY.md"

const memorySchema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["read", "append", "replace", "read_daily", "append_daily", "list_daily", "read_bootstrap", "update_bootstrap", "search", "remember", "recall", "forget"],
      "description": "read/append/replace: MEMORY.md; *_daily: daily logs; *_bootstrap: file; search/recall: query; remember/forget: key"},
    "content": {"type": "string"},
    "query": {"type": "string"},
    "key": {"type": "string", "maxLength": 200},
    "file": {"type": "string", "description": "e.g. USER.md"},
    "date": {"type": "string", "description": "YYYY-MM-DD, default today"}
  },
  "required": ["action"],
  "additionalProperties": false
}`

const memoryDesc = "Your memory: MEMORY.md, daily logs, workspace files, keyed notes. Save what should outlive this conversation."

// WorkspaceMemory is the workspace_memory tool.
type WorkspaceMemory struct{ opts MemoryOptions }

var _ beamclaw.Tool = (*WorkspaceMemory)(nil)

// NewWorkspaceMemory returns the workspace_memory tool.
func NewWorkspaceMemory(opts MemoryOptions) *WorkspaceMemory {
	opts.Clock = clock.Or(opts.Clock)
	opts.SearchLimit = orInt(opts.SearchLimit, 5)
	return &WorkspaceMemory{opts: opts}
}

// Spec implements beamclaw.Tool. As in the spec, it needs no approval and
// runs at read_only: it only touches the calling agent's own files.
func (m *WorkspaceMemory) Spec() beamclaw.ToolSpec {
	return spec("workspace_memory", memoryDesc, memorySchema, false, beamclaw.ReadOnly, beamclaw.RiskMedium)
}

type memoryArgs struct {
	Action  string `json:"action"`
	Key     string `json:"key"`
	Content string `json:"content"`
	Query   string `json:"query"`
	File    string `json:"file"`
	Date    string `json:"date"`
}

// Execute implements beamclaw.Tool.
func (m *WorkspaceMemory) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a memoryArgs
	if err := decodeArgs("workspace_memory", inv.Args, &a); err != nil {
		return "", err
	}
	if m.opts.Workspace == nil {
		return "", errors.New("workspace_memory: no workspace store is configured")
	}
	if inv.AgentID == "" {
		return "", errors.New("workspace_memory: this run has no agent")
	}
	trust := inv.Trust
	if trust == "" {
		trust = inv.Channel
	}
	out, err := m.do(ctx, owner{agent: inv.AgentID, user: inv.UserID, remote: trust.Remote()}, a)
	if err != nil {
		return "", fmt.Errorf("workspace_memory %s: %w", a.Action, err)
	}
	return out, nil
}

// owner is whose memory a call touches: the run's agent and user, and
// whether the run has a remote channel's trust.
type owner struct {
	agent, user string
	remote      bool
}

func (m *WorkspaceMemory) do(ctx context.Context, o owner, a memoryArgs) (string, error) {
	ws, agent, user := m.opts.Workspace, o.agent, o.user
	switch a.Action {
	case "read":
		return orEmpty(ws.ReadFile(agent, user, memoryFile))
	case "append":
		return done(needContent(a), func() error { return ws.AppendFile(agent, user, memoryFile, a.Content) }, "appended to MEMORY.md")
	case "replace":
		return done(nil, func() error { return ws.WriteFile(agent, user, memoryFile, a.Content) }, "replaced MEMORY.md")
	case "read_daily":
		d, err := m.date(a.Date)
		if err != nil {
			return "", err
		}
		return orEmpty(ws.ReadDaily(agent, user, d))
	case "append_daily":
		d, err := m.date(a.Date)
		if err != nil {
			return "", err
		}
		return done(needContent(a), func() error { return ws.AppendDaily(agent, user, d, a.Content) }, "appended to the daily log of "+d.Format(time.DateOnly))
	case "list_daily":
		days, err := ws.ListDaily(agent, user)
		if err != nil || len(days) == 0 {
			return "[no daily logs yet]", err
		}
		return strings.Join(days, "\n"), nil
	case "read_bootstrap", "update_bootstrap":
		return m.bootstrap(o, a)
	case "search":
		return m.search(ctx, o, a.Query)
	case "remember", "recall", "forget":
		return m.notes(ctx, o, a)
	}
	return "", fmt.Errorf("unknown action %q", a.Action)
}

func (m *WorkspaceMemory) bootstrap(o owner, a memoryArgs) (string, error) {
	file, err := bootstrapFile(a.File)
	if err != nil {
		return "", err
	}
	if a.Action == "read_bootstrap" {
		return orEmpty(m.opts.Workspace.ReadFile(o.agent, o.user, file))
	}
	if file != "USER.md" && o.remote && !m.opts.Workspace.SharedMemory(o.agent) { // USER.md is the user's own
		return "", fmt.Errorf("%s is in every user's prompt; under memory_scope: user only the terminal changes it (your own notes go to MEMORY.md or USER.md)", file)
	}
	return done(needContent(a), func() error { return m.opts.Workspace.WriteFile(o.agent, o.user, file, a.Content) }, "updated "+file)
}

func (m *WorkspaceMemory) search(ctx context.Context, o owner, query string) (string, error) {
	if strings.TrimSpace(query) == "" {
		return "", errors.New("query is required")
	}
	if m.opts.Search == nil {
		return "", errors.New("memory search is not configured")
	}
	hits, err := m.opts.Search.Search(ctx, o.agent, o.user, query, m.opts.SearchLimit)
	if err != nil {
		return "", err
	}
	if len(hits) == 0 {
		return fmt.Sprintf("No memories match %q.", query), nil
	}
	var sb strings.Builder
	for i, h := range hits {
		fmt.Fprintf(&sb, "%d. [%s, score %.2f]\n%s\n\n", i+1, h.Source, h.Score, strings.TrimSpace(h.Text))
	}
	return strings.TrimSuffix(sb.String(), "\n\n"), nil
}

// notes serves the keyed-note actions.
func (m *WorkspaceMemory) notes(ctx context.Context, o owner, a memoryArgs) (string, error) {
	n := m.opts.Notes
	if n == nil {
		return "", errors.New("keyed notes are not configured")
	}
	switch a.Action {
	case "remember":
		if strings.TrimSpace(a.Key) == "" {
			return "", errors.New("key is required")
		}
		return done(needContent(a), func() error { return n.Remember(ctx, o.agent, o.user, a.Key, a.Content) }, "remembered "+a.Key)
	case "forget":
		if strings.TrimSpace(a.Key) == "" {
			return "", errors.New("key is required")
		}
		return done(nil, func() error { return n.Forget(ctx, o.agent, o.user, a.Key) }, "forgot "+a.Key)
	}
	hits, err := n.Recall(ctx, o.agent, o.user, a.Query, m.opts.SearchLimit)
	if err != nil {
		return "", err
	}
	if len(hits) == 0 {
		return "No notes match.", nil
	}
	var sb strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&sb, "- %s: %s\n", h.Source, strings.TrimSpace(h.Text))
	}
	return strings.TrimSuffix(sb.String(), "\n"), nil
}

// date parses YYYY-MM-DD in the clock's location, defaulting to today.
func (m *WorkspaceMemory) date(s string) (time.Time, error) {
	now := m.opts.Clock.Now()
	if s == "" {
		return now, nil
	}
	d, err := time.ParseInLocation(time.DateOnly, s, now.Location())
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
	}
	return d, nil
}

// bootstrapFile accepts "user", "USER.md" or "user.md" and returns the
// canonical name, refusing anything else (no paths).
func bootstrapFile(name string) (string, error) {
	if name == "" {
		return "", errors.New("file is required: one of " + strings.Join(bootstrapFiles, ", "))
	}
	want := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(name, ".md"), ".MD")) + ".md"
	for _, f := range bootstrapFiles {
		if f == want {
			return f, nil
		}
	}
	return "", fmt.Errorf("file %q: want one of %s", name, strings.Join(bootstrapFiles, ", "))
}

func needContent(a memoryArgs) error {
	if strings.TrimSpace(a.Content) == "" {
		return errors.New("content is required")
	}
	return nil
}

func done(pre error, do func() error, msg string) (string, error) {
	if pre != nil {
		return "", pre
	}
	if err := do(); err != nil {
		return "", err
	}
	return msg, nil
}

func orEmpty(s string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "[empty]", nil
	}
	return s, nil
}
