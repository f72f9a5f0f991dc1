package memory

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sort"
	"sync"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/memory/search"
)

// embedBatch is the number of chunks sent in one Embed call.
const embedBatch = 64

// chunkSlot is one indexed chunk. Slots of removed chunks are reused.
type chunkSlot struct {
	source     string
	text       string
	start, end int
	live       bool
	pending    bool   // waiting for a vector
	gen        uint64 // changes whenever the slot is reused
}

type sourceState struct {
	hash  [sha256.Size]byte
	slots []int32
}

// Index holds the chunks of many sources (files, entries), searchable by
// BM25 and, with an embedder, by vector similarity. Set re-chunks a source
// only when its content hash changed; vectors of new chunks are computed
// lazily in batches by Embed (called by Search, Workspace.Refresh, or the
// caller). It is safe for concurrent use.
type Index struct {
	opts     SearchOptions
	embedder beamclaw.Embedder

	embedMu sync.Mutex // one Embed pass at a time
	mu      sync.RWMutex
	bm25    *search.BM25
	vecs    search.Vectors
	slots   []chunkSlot
	free    []int32
	sources map[string]*sourceState
	gen     uint64
	pending int // live slots waiting for a vector
}

// NewIndex returns an empty index. embedder may be nil: semantic and
// hybrid searches then degrade to keyword search and say so. Pass the
// embedcache.Cache in front of the provider so unchanged text is never
// embedded twice.
func NewIndex(opts SearchOptions, embedder beamclaw.Embedder) *Index {
	return &Index{
		opts:     opts,
		embedder: embedder,
		bm25:     search.NewBM25(search.DefaultK1, search.DefaultB),
		sources:  make(map[string]*sourceState),
	}
}

// Set indexes content under source, replacing what the source held. It
// returns false, doing nothing, when the content is unchanged.
func (x *Index) Set(source, content string) bool {
	hash := sha256.Sum256([]byte(content))
	chunks := search.ChunkText(content, x.opts.ChunkSize, x.opts.ChunkOverlap)
	x.mu.Lock()
	defer x.mu.Unlock()
	if st, ok := x.sources[source]; ok {
		if st.hash == hash {
			return false
		}
		x.dropLocked(st)
	}
	st := &sourceState{hash: hash, slots: make([]int32, 0, len(chunks))}
	for _, c := range chunks {
		id := x.allocLocked()
		x.gen++
		x.slots[id] = chunkSlot{
			source: source, text: c.Text, start: c.StartLine, end: c.EndLine,
			live: true, pending: x.embedder != nil, gen: x.gen,
		}
		x.bm25.Add(id, c.Text)
		st.slots = append(st.slots, id)
		if x.embedder != nil {
			x.pending++
		}
	}
	x.sources[source] = st
	return true
}

// Remove drops source and reports whether it was indexed.
func (x *Index) Remove(source string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	st, ok := x.sources[source]
	if !ok {
		return false
	}
	x.dropLocked(st)
	delete(x.sources, source)
	return true
}

// Sources returns the indexed source names, sorted.
func (x *Index) Sources() []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]string, 0, len(x.sources))
	for s := range x.sources {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Len returns the number of indexed chunks.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.bm25.Len()
}

func (x *Index) allocLocked() int32 {
	if n := len(x.free); n > 0 {
		id := x.free[n-1]
		x.free = x.free[:n-1]
		return id
	}
	x.slots = append(x.slots, chunkSlot{})
	return int32(len(x.slots) - 1)
}

func (x *Index) dropLocked(st *sourceState) {
	for _, id := range st.slots {
		x.bm25.Remove(id, x.slots[id].text)
		x.vecs.Clear(id)
		if x.slots[id].pending {
			x.pending--
		}
		x.slots[id] = chunkSlot{}
		x.free = append(x.free, id)
	}
}

type pendingChunk struct {
	id   int32
	gen  uint64
	text string
}

// Embed computes the vectors of chunks that have none yet, in batches. It
// does nothing without an embedder. Chunks changed meanwhile are skipped.
func (x *Index) Embed(ctx context.Context) error {
	if x.embedder == nil {
		return nil
	}
	x.mu.RLock()
	idle := x.pending == 0
	x.mu.RUnlock()
	if idle {
		return nil
	}
	x.embedMu.Lock()
	defer x.embedMu.Unlock()
	x.mu.RLock()
	if x.pending == 0 {
		x.mu.RUnlock()
		return nil
	}
	queue := make([]pendingChunk, 0, x.pending)
	for id, s := range x.slots {
		if s.live && s.pending {
			queue = append(queue, pendingChunk{id: int32(id), gen: s.gen, text: s.text})
		}
	}
	x.mu.RUnlock()
	for len(queue) > 0 {
		batch := queue[:min(embedBatch, len(queue))]
		queue = queue[len(batch):]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = p.text
		}
		vecs, err := x.embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed memory chunks: %w", err)
		}
		if len(vecs) != len(batch) {
			return beamclaw.E("memory.Embed", beamclaw.KindUnavailable, "embedding provider returned a wrong number of vectors",
				fmt.Errorf("got %d for %d texts", len(vecs), len(batch)))
		}
		if err := x.storeVectors(batch, vecs); err != nil {
			return err
		}
	}
	return nil
}

func (x *Index) storeVectors(batch []pendingChunk, vecs [][]float32) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, p := range batch {
		s := &x.slots[p.id]
		if !s.live || s.gen != p.gen {
			continue
		}
		if err := x.vecs.Set(p.id, vecs[i]); err != nil {
			return beamclaw.E("memory.Embed", beamclaw.KindUnavailable, "embedding dimensions changed", err)
		}
		s.pending = false
		x.pending--
	}
	return nil
}
