package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/memory/search"
)

// Degradation reasons shown to the model.
const (
	ReasonNoEmbedder     = "semantic search is not configured (no embedding API key); showing keyword (BM25) results only"
	ReasonEmbedderFailed = "the embedding provider failed; showing keyword (BM25) results only"
)

// candidates is how many hits each ranking contributes to a merge.
func candidates(limit int) int { return max(4*limit, 24) }

// Search ranks chunks for q. Keyword search never needs the network;
// semantic and hybrid search embed pending chunks and the query first and
// degrade to keyword search (Results.Degraded) when that is impossible. An
// error is returned only for an empty query or a cancelled ctx.
func (x *Index) Search(ctx context.Context, q Query) (Results, error) {
	if strings.TrimSpace(q.Text) == "" {
		return Results{}, beamclaw.E("memory.Search", beamclaw.KindInvalid, "empty search query", nil)
	}
	mode := q.Mode
	if mode == "" {
		mode = ModeHybrid
	}
	if !mode.Valid() {
		return Results{}, beamclaw.E("memory.Search", beamclaw.KindInvalid,
			fmt.Sprintf("unknown search mode %q (want keyword, semantic or hybrid)", q.Mode), nil)
	}
	limit := q.Limit
	if limit < 1 {
		limit = x.opts.DefaultLimit
	}
	if mode == ModeKeyword {
		return x.keyword(q.Text, limit), nil
	}
	if x.embedder == nil {
		return x.degraded(q.Text, limit, ReasonNoEmbedder, nil), nil
	}
	qv, err := x.embedQuery(ctx, q.Text)
	if err != nil {
		if ctx.Err() != nil {
			return Results{}, fmt.Errorf("memory search: %w", ctx.Err())
		}
		return x.degraded(q.Text, limit, ReasonEmbedderFailed, err), nil
	}
	return x.vectorSearch(q.Text, qv, mode, limit)
}

func (x *Index) embedQuery(ctx context.Context, text string) ([]float32, error) {
	if err := x.Embed(ctx); err != nil {
		return nil, err
	}
	vs, err := x.embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(vs) != 1 || len(vs[0]) == 0 {
		return nil, beamclaw.E("memory.Search", beamclaw.KindUnavailable, "embedding provider returned no vector", nil)
	}
	return vs[0], nil
}

func (x *Index) keyword(text string, limit int) Results {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.keywordLocked(text, limit)
}

func (x *Index) degraded(text string, limit int, reason string, cause error) Results {
	r := x.keyword(text, limit)
	r.Degraded, r.Reason, r.Cause = true, reason, cause
	return r
}

func (x *Index) vectorSearch(text string, qv []float32, mode Mode, limit int) (Results, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	vec, err := x.vecs.Search(qv, candidates(limit))
	if err != nil {
		r := x.keywordLocked(text, limit)
		r.Degraded, r.Reason, r.Cause = true, ReasonEmbedderFailed, err
		return r, nil
	}
	w := search.Weights{Vector: 1, MinScore: x.opts.MinScore, Limit: limit}
	var kw []search.Hit
	if mode == ModeHybrid {
		kw = x.bm25.Search(text, candidates(limit))
		w.Vector, w.BM25 = x.opts.VectorWeight, x.opts.BM25Weight
	}
	merged := search.Merge(kw, vec, w)
	return Results{Hits: x.hitsLocked(merged, mode), Mode: mode}, nil
}

func (x *Index) keywordLocked(text string, limit int) Results {
	kw := x.bm25.Search(text, candidates(limit))
	merged := search.Merge(kw, nil, search.Weights{BM25: 1, MinScore: x.opts.MinScore, Limit: limit})
	return Results{Hits: x.hitsLocked(merged, ModeKeyword), Mode: ModeKeyword}
}

func (x *Index) hitsLocked(merged []search.Merged, mode Mode) []Hit {
	hits := make([]Hit, 0, len(merged))
	for _, m := range merged {
		s := x.slots[m.Doc]
		hits = append(hits, Hit{
			Source: s.source, Text: s.text, StartLine: s.start, EndLine: s.end,
			Score: m.Score, Mode: mode,
		})
	}
	return hits
}

// rankSources returns up to k distinct sources whose chunks match query by
// keyword, best first, without score filtering (Backend.Recall).
func (x *Index) rankSources(query string, k int) []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	hits := x.bm25.Search(query, candidates(k))
	seen := make(map[string]struct{}, len(hits))
	var out []string
	for _, h := range hits {
		src := x.slots[h.Doc].source
		if _, dup := seen[src]; dup {
			continue
		}
		seen[src] = struct{}{}
		if out = append(out, src); len(out) == k {
			break
		}
	}
	return out
}
