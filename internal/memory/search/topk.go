package search

import "sort"

// Hit is one scored document (a chunk slot) of a ranked list.
type Hit struct {
	Doc   int32
	Score float32
}

// topK keeps the k highest-scoring hits seen so far in a min-heap, so that
// ranking n candidates costs O(n log k) and allocates only k entries.
type topK struct {
	k    int
	heap []Hit
}

func newTopK(k int) topK {
	return topK{k: k, heap: make([]Hit, 0, k)}
}

// full reports whether the heap holds k hits already.
func (t *topK) full() bool { return len(t.heap) == t.k }

func (t *topK) push(h Hit) {
	if t.k <= 0 {
		return
	}
	if len(t.heap) < t.k {
		t.heap = append(t.heap, h)
		t.up(len(t.heap) - 1)
		return
	}
	if !less(t.heap[0], h) {
		return
	}
	t.heap[0] = h
	t.down(0)
}

// less orders by score, then prefers the lower doc id on ties so that
// results are deterministic.
func less(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Doc > b.Doc
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(t.heap[i], t.heap[p]) {
			return
		}
		t.heap[i], t.heap[p] = t.heap[p], t.heap[i]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.heap)
	for {
		l, m := 2*i+1, i
		if l < n && less(t.heap[l], t.heap[m]) {
			m = l
		}
		if r := l + 1; r < n && less(t.heap[r], t.heap[m]) {
			m = r
		}
		if m == i {
			return
		}
		t.heap[i], t.heap[m] = t.heap[m], t.heap[i]
		i = m
	}
}

// sorted returns the kept hits, best first.
func (t *topK) sorted() []Hit {
	out := t.heap
	sort.Slice(out, func(i, j int) bool { return less(out[j], out[i]) })
	return out
}
