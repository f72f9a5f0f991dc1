package tool

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Defaults of Options.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultMaxTimeout     = 10 * time.Minute
	DefaultMaxOutputBytes = 4 << 20
)

// Source supplies tools whose list may change at any time (an MCP server).
// Tools is called on lookups, so it must be cheap and safe for concurrent
// use; return a snapshot, never a slice that is later mutated.
type Source interface {
	Tools() []beamclaw.Tool
}

// AgentSource is an optional interface of a Source whose tools depend on
// the agent (an MCP server configured for some agents only): Specs lists
// ToolsFor(agent), and Allowed refuses the source's tools that the agent
// does not get.
type AgentSource interface {
	ToolsFor(agentID string) []beamclaw.Tool
	LookupFor(agentID, name string) (beamclaw.Tool, bool)
}

// Finder is an optional fast path a Source may implement: find one tool by
// name without building the whole list.
type Finder interface {
	Tool(name string) (beamclaw.Tool, bool)
}

// TimeoutHinter is an optional interface of a Tool that asks for a call
// timeout other than Options.Timeout (bash's timeout_seconds, say). The
// hint is capped at Options.MaxTimeout; zero means "use the default".
type TimeoutHinter interface {
	CallTimeout(args []byte) time.Duration
}

// Options configure a Registry. Zero values take the documented defaults.
type Options struct {
	// Timeout bounds one call (tools.timeout_seconds, default 60 s).
	Timeout time.Duration
	// MaxTimeout caps the timeout a tool may ask for (default 10 min).
	MaxTimeout time.Duration
	// MaxOutputBytes caps a result's content (tools.max_output_bytes,
	// default 4 MiB: what is kept whole; the model gets a page of it, the
	// loop's Paging); longer output ends with a truncation marker.
	MaxOutputBytes int
	// Logger receives panics of tools (name and stack, never arguments).
	Logger *slog.Logger
	// Inline reports whether agentID gets the registered tool name sent
	// with every model request; the others are deferred: listed by
	// Catalog, found with tool_search, callable by name. nil sends every
	// tool.
	Inline func(agentID, name string) bool
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	if o.MaxTimeout < o.Timeout {
		o.MaxTimeout = o.Timeout
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

type namedSource struct {
	name string
	src  Source
}

// snapshot is the immutable state read by lookups; writers replace it.
type snapshot struct {
	static  map[string]beamclaw.Tool
	sources []namedSource // sorted by name
}

// Registry holds the tools agents may call. It is safe for concurrent use;
// reads never take a lock.
type Registry struct {
	opts    Options
	mu      sync.Mutex // serialises writers
	state   atomic.Pointer[snapshot]
	schemas schemaCache

	amu       sync.Mutex
	activated map[string][]string // agent -> deferred registered tools tool_search found, oldest first
}

// New returns an empty Registry.
func New(opts Options) *Registry {
	r := &Registry{opts: opts.withDefaults(), activated: map[string][]string{}}
	r.state.Store(&snapshot{static: map[string]beamclaw.Tool{}})
	return r
}

// Register adds a tool, whose spec must not change (it is read once). A
// second tool with the same name is an error.
func (r *Registry) Register(t beamclaw.Tool) error {
	t = fixed{Tool: t, spec: t.Spec()}
	name := t.Spec().Def.Name
	if err := validName(name); err != nil {
		return fmt.Errorf("register tool: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.state.Load()
	if _, dup := old.static[name]; dup {
		return beamclaw.E("tool.Register", beamclaw.KindConflict,
			fmt.Sprintf("tool %q is already registered", name), nil)
	}
	static := make(map[string]beamclaw.Tool, len(old.static)+1)
	for k, v := range old.static {
		static[k] = v
	}
	static[name] = t
	r.state.Store(&snapshot{static: static, sources: old.sources})
	return nil
}

// AddSource adds (or replaces) a named source of tools, e.g. "mcp:github".
func (r *Registry) AddSource(name string, src Source) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.state.Load()
	srcs := make([]namedSource, 0, len(old.sources)+1)
	for _, s := range old.sources {
		if s.name != name {
			srcs = append(srcs, s)
		}
	}
	srcs = append(srcs, namedSource{name: name, src: src})
	slices.SortFunc(srcs, func(a, b namedSource) int { return strings.Compare(a.name, b.name) })
	r.state.Store(&snapshot{static: old.static, sources: srcs})
}

// RemoveSource drops a source; its tools vanish from the next lookup.
func (r *Registry) RemoveSource(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.state.Load()
	srcs := make([]namedSource, 0, len(old.sources))
	for _, s := range old.sources {
		if s.name != name {
			srcs = append(srcs, s)
		}
	}
	r.state.Store(&snapshot{static: old.static, sources: srcs})
}

// Lookup finds a tool by name: registered tools first, then sources in
// name order.
func (r *Registry) Lookup(name string) (beamclaw.Tool, bool) {
	if name == SearchToolName {
		return searchTool{r}, true
	}
	st := r.state.Load()
	if t, ok := st.static[name]; ok {
		return t, true
	}
	for _, s := range st.sources {
		if t, ok := lookupIn(s.src, name); ok {
			return t, true
		}
	}
	return nil, false
}

// lookupIn finds a tool of one source by name.
func lookupIn(src Source, name string) (beamclaw.Tool, bool) {
	if f, ok := src.(Finder); ok {
		return f.Tool(name)
	}
	for _, t := range src.Tools() {
		if t.Spec().Def.Name == name {
			return t, true
		}
	}
	return nil, false
}

// Allowed reports whether agentID may see and run the tool called name
// (a source's per-agent filter: an MCP server's agents list).
func (r *Registry) Allowed(agentID, name string) bool {
	if agentID == "" {
		return true
	}
	for _, s := range r.state.Load().sources {
		as, ok := s.src.(AgentSource)
		if !ok {
			continue
		}
		if _, mine := lookupIn(s.src, name); mine {
			_, forAgent := as.LookupFor(agentID, name)
			return forAgent
		}
	}
	return true
}

// Specs lists the tools agentID may call, sorted by name. A name offered
// by several places appears once, resolved as Lookup resolves it.
func (r *Registry) Specs(agentID string) []beamclaw.ToolSpec {
	st := r.state.Load()
	out := make([]beamclaw.ToolSpec, 0, len(st.static))
	add := func(t beamclaw.Tool) {
		if spec := t.Spec(); r.Allowed(agentID, spec.Def.Name) {
			out = append(out, spec)
		}
	}
	inline := r.inline(agentID)
	for name, t := range st.static {
		if inline(name) {
			add(t)
		}
	}
	if len(r.deferred(agentID)) > 0 {
		out = append(out, searchSpec)
	}
	for _, s := range st.sources {
		tools := s.src.Tools
		if as, ok := s.src.(AgentSource); ok && agentID != "" {
			tools = func() []beamclaw.Tool { return as.ToolsFor(agentID) }
		}
		for _, t := range tools() {
			add(t)
		}
	}
	// Sorted stably, the first of equal names is the one Lookup finds
	// (registered tools, then sources in order); the others go.
	slices.SortStableFunc(out, func(a, b beamclaw.ToolSpec) int { return strings.Compare(a.Def.Name, b.Def.Name) })
	return slices.CompactFunc(out, func(a, b beamclaw.ToolSpec) bool { return a.Def.Name == b.Def.Name })
}

// ValidName reports whether name is one providers accept as a tool's.
func ValidName(name string) bool { return validName(name) == nil }

// validName accepts the names providers accept: 1-64 of [A-Za-z0-9_.-].
func validName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("tool name %q: want 1 to 64 characters", name)
	}
	for _, c := range name {
		ok := c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			return fmt.Errorf("tool name %q: only letters, digits, '_', '-' and '.' allowed", name)
		}
	}
	return nil
}

// fixed is a registered tool whose spec, which does not change, is read
// once: the loop lists every tool's spec on each provider call.
type fixed struct {
	beamclaw.Tool
	spec beamclaw.ToolSpec
}

func (f fixed) Spec() beamclaw.ToolSpec { return f.spec }

// Names are the names of every tool agentID may call: those Specs lists
// and those deferred behind tool_search.
func (r *Registry) Names(agentID string) []string {
	var names []string
	for _, s := range r.Specs(agentID) {
		names = append(names, s.Def.Name)
	}
	for _, t := range r.deferred(agentID) {
		names = append(names, t.Spec().Def.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// inline reports which registered tools agentID gets inline: those of
// Options.Inline and those its searches found.
func (r *Registry) inline(agentID string) func(name string) bool {
	if r.opts.Inline == nil {
		return func(string) bool { return true }
	}
	r.amu.Lock()
	found := slices.Clone(r.activated[agentID])
	r.amu.Unlock()
	return func(name string) bool { return r.opts.Inline(agentID, name) || slices.Contains(found, name) }
}

// deferred is every tool agentID may use but does not get inline from
// the start: registered tools left out of Options.Inline, and the
// sources' deferred tools (Deferrer). A search may have made some inline
// since.
func (r *Registry) deferred(agentID string) []beamclaw.Tool {
	st := r.state.Load()
	var out []beamclaw.Tool
	if r.opts.Inline != nil {
		for name, t := range st.static {
			if !r.opts.Inline(agentID, name) && r.Allowed(agentID, name) {
				out = append(out, t)
			}
		}
	}
	for _, s := range st.sources {
		if d, ok := s.src.(Deferrer); ok {
			out = append(out, d.DeferredFor(agentID)...)
		}
	}
	return out
}

// activate makes the found tools inline for agentID: registered ones
// here (at most activatedMax, the most recent), a source's through its
// Activate.
func (r *Registry) activate(agentID string, found []beamclaw.Tool) {
	st := r.state.Load()
	var mine []string
	for _, t := range found {
		name := t.Spec().Def.Name
		if _, ok := st.static[name]; ok {
			mine = append(mine, name)
		}
	}
	for _, s := range st.sources {
		d, ok := s.src.(Deferrer)
		if !ok {
			continue
		}
		var theirs []string
		for _, t := range d.DeferredFor(agentID) {
			if slices.ContainsFunc(found, func(f beamclaw.Tool) bool { return f.Spec().Def.Name == t.Spec().Def.Name }) {
				theirs = append(theirs, t.Spec().Def.Name)
			}
		}
		if len(theirs) > 0 {
			d.Activate(agentID, theirs)
		}
	}
	if len(mine) == 0 {
		return
	}
	r.amu.Lock()
	defer r.amu.Unlock()
	list := slices.DeleteFunc(r.activated[agentID], func(n string) bool { return slices.Contains(mine, n) })
	list = append(list, mine...)
	if len(list) > activatedMax {
		list = list[len(list)-activatedMax:]
	}
	r.activated[agentID] = list
}
