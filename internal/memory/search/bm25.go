package search

import (
	"math"
	"sync"
)

// BM25 parameters used by NewBM25.
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

type posting struct {
	doc int32
	tf  float32
}

// BM25 is an inverted index over documents identified by small integers
// (chunk slots). Postings, document lengths and the term dictionary are
// kept up to date on Add and Remove, so a query touches only the postings
// of its own terms. Mutations must be serialized by the caller; Search may
// run concurrently with other Searches.
type BM25 struct {
	k1, b    float32
	terms    map[string]int32
	postings [][]posting // by term id
	docLen   []float32   // by doc; 0 for an absent doc
	docs     int
	totalLen float64
	scratch  sync.Pool
}

type bm25Scratch struct {
	scores  []float32
	touched []int32
	terms   []string
}

// NewBM25 returns an empty index with the given k1 and b (use DefaultK1,
// DefaultB).
func NewBM25(k1, b float64) *BM25 {
	return &BM25{k1: float32(k1), b: float32(b), terms: make(map[string]int32)}
}

// Len returns the number of indexed documents.
func (x *BM25) Len() int { return x.docs }

// Add indexes text as document doc. doc must not be indexed already.
func (x *BM25) Add(doc int32, text string) {
	toks := Tokenize(text)
	if int(doc) >= len(x.docLen) {
		x.docLen = append(x.docLen, make([]float32, int(doc)+1-len(x.docLen))...)
	}
	x.docLen[doc] = float32(len(toks))
	x.docs++
	x.totalLen += float64(len(toks))
	counts := make(map[string]float32, len(toks))
	for _, t := range toks {
		counts[t]++
	}
	for t, n := range counts {
		id, ok := x.terms[t]
		if !ok {
			id = int32(len(x.postings))
			x.terms[t] = id
			x.postings = append(x.postings, nil)
		}
		x.postings[id] = append(x.postings[id], posting{doc: doc, tf: n})
	}
}

// Remove drops document doc, which must have been added with this text.
func (x *BM25) Remove(doc int32, text string) {
	if int(doc) >= len(x.docLen) {
		return
	}
	seen := make(map[int32]struct{})
	for _, t := range Tokenize(text) {
		id, ok := x.terms[t]
		if !ok {
			continue
		}
		if _, dup := seen[id]; dup {
			continue
		}
		seen[id] = struct{}{}
		x.postings[id] = removePosting(x.postings[id], doc)
	}
	x.docs--
	x.totalLen -= float64(x.docLen[doc])
	x.docLen[doc] = 0
}

func removePosting(ps []posting, doc int32) []posting {
	for i := range ps {
		if ps[i].doc == doc {
			last := len(ps) - 1
			ps[i] = ps[last]
			return ps[:last]
		}
	}
	return ps
}

// Search returns up to k documents matching query, best first, with their
// raw BM25 scores (always > 0).
func (x *BM25) Search(query string, k int) []Hit {
	if x.docs == 0 || k <= 0 {
		return nil
	}
	s := x.getScratch()
	defer x.scratch.Put(s)
	s.terms = AppendTokens(s.terms[:0], query)
	n := float64(x.docs)
	avg := float32(x.totalLen / n)
	if avg == 0 {
		avg = 1
	}
	for i, t := range s.terms {
		if dupTerm(s.terms[:i], t) {
			continue
		}
		id, ok := x.terms[t]
		if !ok || len(x.postings[id]) == 0 {
			continue
		}
		ps := x.postings[id]
		df := float64(len(ps))
		idf := float32(math.Log(1 + (n-df+0.5)/(df+0.5)))
		for _, p := range ps {
			norm := x.k1 * (1 - x.b + x.b*x.docLen[p.doc]/avg)
			if s.scores[p.doc] == 0 {
				s.touched = append(s.touched, p.doc)
			}
			s.scores[p.doc] += idf * p.tf * (x.k1 + 1) / (p.tf + norm)
		}
	}
	top := newTopK(k)
	for _, d := range s.touched {
		top.push(Hit{Doc: d, Score: s.scores[d]})
		s.scores[d] = 0
	}
	s.touched = s.touched[:0]
	return top.sorted()
}

func dupTerm(prev []string, t string) bool {
	for _, p := range prev {
		if p == t {
			return true
		}
	}
	return false
}

func (x *BM25) getScratch() *bm25Scratch {
	s, _ := x.scratch.Get().(*bm25Scratch)
	if s == nil {
		s = &bm25Scratch{}
	}
	if len(s.scores) < len(x.docLen) {
		s.scores = make([]float32, len(x.docLen))
	}
	return s
}
