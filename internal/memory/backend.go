package memory

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Category groups entries (the spec's memory_category).
type Category string

// Categories. All matches every category in Recall.
const (
	CategoryCore         Category = "core"
	CategoryDaily        Category = "daily"
	CategoryConversation Category = "conversation"
	CategoryCustom       Category = "custom"
	All                  Category = ""
)

// Valid reports whether c is one of the four categories.
func (c Category) Valid() bool {
	switch c {
	case CategoryCore, CategoryDaily, CategoryConversation, CategoryCustom:
		return true
	}
	return false
}

// Entry is one stored memory.
type Entry struct {
	Key       string    `json:"key"`
	Value     string    `json:"value"`
	Category  Category  `json:"category"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Backend is one agent's key-value memory with ranked search (the spec's
// bc_memory). Get fails with beamclaw.KindNotFound for an unknown key;
// Forget of an unknown key succeeds. Search ranks entry values; hit
// sources are entry keys.
type Backend interface {
	Store(ctx context.Context, key, value string, cat Category) error
	Recall(ctx context.Context, query string, limit int, cat Category) ([]Entry, error)
	Get(ctx context.Context, key string) (Entry, error)
	Forget(ctx context.Context, key string) error
	Search(ctx context.Context, q Query) (Results, error)
}

var (
	_ Backend = (*Memory)(nil)
	_ Backend = (*Bolt)(nil)
)

// durable writes entries through to storage before Memory applies them,
// and brings in what others wrote there (refresh, before each use).
type durable interface {
	put(ctx context.Context, e Entry) error
	delete(ctx context.Context, key string) error
	refresh(ctx context.Context)
}

// Memory is the in-memory Backend: a map behind a mutex plus an Index.
type Memory struct {
	agent   string
	opts    Options
	durable durable // nil for a purely in-memory backend

	wmu     sync.Mutex // serializes Store and Forget
	mu      sync.RWMutex
	entries map[string]Entry
	idx     *Index
}

// NewMemory returns an empty in-memory backend for agentID. embedder may
// be nil (keyword search only).
func NewMemory(agentID string, opts Options, embedder beamclaw.Embedder) (*Memory, error) {
	if agentID == "" {
		return nil, beamclaw.E("memory.New", beamclaw.KindInvalid, "empty agent id", nil)
	}
	return &Memory{
		agent:   agentID,
		opts:    opts,
		entries: make(map[string]Entry),
		idx:     NewIndex(opts.Search, embedder),
	}, nil
}

// Agent returns the agent this memory belongs to.
func (m *Memory) Agent() string { return m.agent }

// prepare validates a store and builds the entry it writes, keeping the
// creation time of an existing key.
func (m *Memory) prepare(key, value string, cat Category) (Entry, error) {
	if key == "" {
		return Entry{}, beamclaw.E("memory.Store", beamclaw.KindInvalid, "empty memory key", nil)
	}
	if !cat.Valid() {
		return Entry{}, beamclaw.E("memory.Store", beamclaw.KindInvalid,
			fmt.Sprintf("unknown memory category %q (want core, daily, conversation or custom)", cat), nil)
	}
	now := m.opts.now().UTC()
	e := Entry{Key: key, Value: value, Category: cat, CreatedAt: now, UpdatedAt: now}
	m.mu.RLock()
	if old, ok := m.entries[key]; ok {
		e.CreatedAt = old.CreatedAt
	}
	m.mu.RUnlock()
	return e, nil
}

// refresh brings in the storage's changes made elsewhere (durable
// backends only); it must not run under wmu.
func (m *Memory) refresh(ctx context.Context) {
	if m.durable != nil {
		m.durable.refresh(ctx)
	}
}

// Store saves value under key, replacing any earlier value.
func (m *Memory) Store(ctx context.Context, key, value string, cat Category) error {
	m.refresh(ctx)
	m.wmu.Lock()
	defer m.wmu.Unlock()
	e, err := m.prepare(key, value, cat)
	if err != nil {
		return err
	}
	if m.durable != nil {
		if err := m.durable.put(ctx, e); err != nil {
			return err
		}
	}
	m.put(e)
	return nil
}

func (m *Memory) put(e Entry) {
	m.mu.Lock()
	m.entries[e.Key] = e
	m.mu.Unlock()
	m.idx.Set(e.Key, e.Value)
}

// replace makes entries the memory's whole content, indexing only what
// changed.
func (m *Memory) replace(entries map[string]Entry) {
	m.mu.Lock()
	old := m.entries
	m.entries = entries
	m.mu.Unlock()
	for k := range old {
		if _, ok := entries[k]; !ok {
			m.idx.Remove(k)
		}
	}
	for k, e := range entries {
		if o, ok := old[k]; !ok || o.Value != e.Value {
			m.idx.Set(k, e.Value)
		}
	}
}

// Get returns the entry under key.
func (m *Memory) Get(ctx context.Context, key string) (Entry, error) {
	m.refresh(ctx)
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.entries[key]
	if !ok {
		return Entry{}, beamclaw.E("memory.Get", beamclaw.KindNotFound, fmt.Sprintf("no memory under key %q", key), nil)
	}
	return e, nil
}

// Forget deletes the entry under key.
func (m *Memory) Forget(ctx context.Context, key string) error {
	m.refresh(ctx)
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.durable != nil {
		if err := m.durable.delete(ctx, key); err != nil {
			return err
		}
	}
	m.mu.Lock()
	delete(m.entries, key)
	m.mu.Unlock()
	m.idx.Remove(key)
	return nil
}

// Recall returns up to limit entries of category cat (All for every
// category): the best keyword matches of query, or the most recently
// updated entries when query is blank. A limit below 1 means the search
// default_limit.
func (m *Memory) Recall(ctx context.Context, query string, limit int, cat Category) ([]Entry, error) {
	m.refresh(ctx)
	if cat != All && !cat.Valid() {
		return nil, beamclaw.E("memory.Recall", beamclaw.KindInvalid, fmt.Sprintf("unknown memory category %q", cat), nil)
	}
	if limit < 1 {
		limit = m.opts.Search.DefaultLimit
	}
	match := func(e Entry) bool { return cat == All || e.Category == cat }
	var out []Entry
	if query != "" {
		m.mu.RLock()
		n := len(m.entries)
		m.mu.RUnlock()
		keys := m.idx.rankSources(query, n+1)
		m.mu.RLock()
		for _, k := range keys {
			if e, ok := m.entries[k]; ok && match(e) && len(out) < limit {
				out = append(out, e)
			}
		}
		m.mu.RUnlock()
		return out, nil
	}
	m.mu.RLock()
	for _, e := range m.entries {
		if match(e) {
			out = append(out, e)
		}
	}
	m.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.After(out[j].UpdatedAt)
		}
		return out[i].Key < out[j].Key
	})
	return out[:min(limit, len(out))], nil
}

// Search ranks entries for q (see Index.Search); hit sources are keys.
func (m *Memory) Search(ctx context.Context, q Query) (Results, error) {
	m.refresh(ctx)
	r, err := m.idx.Search(ctx, q)
	for i := range r.Hits {
		r.Hits[i].StartLine, r.Hits[i].EndLine = 0, 0
	}
	return r, err
}
