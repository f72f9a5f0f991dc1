package search

import "sort"

// Hybrid defaults (the spec's memory.search keys).
const (
	DefaultVectorWeight = 0.7
	DefaultBM25Weight   = 0.3
	DefaultMinScore     = 0.35
	DefaultLimit        = 6
)

// Weights configures Merge.
type Weights struct {
	Vector   float64 // weight of the normalised vector score
	BM25     float64 // weight of the normalised BM25 score
	MinScore float64 // merged scores below this are dropped
	Limit    int     // at most this many results; below 1 means DefaultLimit
}

// Merged is one document of a merged ranking, with its combined score and
// the two normalised components it came from (0 when absent from a list).
type Merged struct {
	Doc     int32
	Score   float64
	Keyword float64
	Vector  float64
}

// NormalizeScores maps scores into [0, 1] by min-max scaling with the minimum
// pinned at zero or below, so the weakest candidate of a short list keeps
// a score proportional to its raw one instead of being forced to zero. A
// list whose scores are all equal and positive maps to 1.
func NormalizeScores(hits []Hit) []float64 {
	out := make([]float64, len(hits))
	if len(hits) == 0 {
		return out
	}
	lo, hi := float64(0), float64(hits[0].Score)
	for _, h := range hits {
		s := float64(h.Score)
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, h := range hits {
		switch {
		case hi > lo:
			out[i] = (float64(h.Score) - lo) / (hi - lo)
		case hi > 0:
			out[i] = 1
		}
	}
	return out
}

// Merge combines a BM25 ranking and a vector ranking: each list is
// normalised (NormalizeScores), a document's score is Vector*vector + BM25*bm25
// (a missing component counts 0), scores below MinScore are dropped, and
// the best Limit remain, best first. With an empty vector list and a zero
// vector weight it is a normalised keyword ranking; callers that degrade to
// keyword search pass Weights{BM25: 1}.
func Merge(bm25, vector []Hit, w Weights) []Merged {
	limit := w.Limit
	if limit < 1 {
		limit = DefaultLimit
	}
	byDoc := make(map[int32]int, len(bm25)+len(vector))
	var out []Merged
	add := func(hits []Hit, keyword bool) {
		for i, n := range NormalizeScores(hits) {
			d := hits[i].Doc
			j, ok := byDoc[d]
			if !ok {
				j = len(out)
				byDoc[d] = j
				out = append(out, Merged{Doc: d})
			}
			if keyword {
				out[j].Keyword = n
			} else {
				out[j].Vector = n
			}
		}
	}
	add(bm25, true)
	add(vector, false)
	kept := out[:0]
	for _, m := range out {
		m.Score = w.Vector*m.Vector + w.BM25*m.Keyword
		if m.Score >= w.MinScore && m.Score > 0 {
			kept = append(kept, m)
		}
	}
	sort.Slice(kept, func(i, j int) bool {
		if kept[i].Score != kept[j].Score {
			return kept[i].Score > kept[j].Score
		}
		return kept[i].Doc < kept[j].Doc
	})
	return kept[:min(limit, len(kept))]
}
