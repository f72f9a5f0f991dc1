package search

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// ErrDimension reports a vector whose length differs from the store's.
var ErrDimension = errors.New("vector dimension mismatch")

// parallelRows is the corpus size from which Vectors.Search splits the
// scan across CPUs.
const parallelRows = 16384

// Dot returns the dot product of a and b (over the shorter length). On
// amd64 with AVX2 and FMA the bulk of the work runs in vector registers.
func Dot(a, b []float32) float32 {
	n := min(len(a), len(b))
	return dot(a[:n], b[:n])
}

// dotGeneric is the portable dot product of equal-length slices.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for len(a) >= 8 && len(b) >= 8 {
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		s4 += a[4] * b[4]
		s5 += a[5] * b[5]
		s6 += a[6] * b[6]
		s7 += a[7] * b[7]
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3) + (s4 + s5) + (s6 + s7)
}

// Norm returns the Euclidean length of v.
func Norm(v []float32) float32 {
	return float32(math.Sqrt(float64(Dot(v, v))))
}

// Normalize scales v in place to unit length; a zero vector is unchanged.
func Normalize(v []float32) {
	n := Norm(v)
	if n == 0 {
		return
	}
	inv := 1 / n
	for i := range v {
		v[i] *= inv
	}
}

// Cosine returns the cosine similarity of a and b in [-1, 1], or 0 when
// either is a zero vector or their lengths differ.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	na, nb := Norm(a), Norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	c := Dot(a, b) / (na * nb)
	return max(-1, min(1, c))
}

// Vectors is a flat row-major matrix of unit vectors indexed by document
// (chunk slot); rows without a vector are skipped by Search. Mutations must
// be serialized by the caller; Search may run concurrently.
type Vectors struct {
	dim  int
	data []float32
	has  []bool
	n    int
}

// Dim returns the vector length, 0 until the first Set.
func (v *Vectors) Dim() int { return v.dim }

// Len returns the number of documents holding a vector.
func (v *Vectors) Len() int { return v.n }

// Has reports whether doc holds a vector.
func (v *Vectors) Has(doc int32) bool { return int(doc) < len(v.has) && v.has[doc] }

// Set stores a unit-length copy of vec as doc's vector. The first Set fixes
// the dimension; later vectors of another length fail with ErrDimension.
func (v *Vectors) Set(doc int32, vec []float32) error {
	if len(vec) == 0 {
		return fmt.Errorf("set vector %d: empty: %w", doc, ErrDimension)
	}
	if v.dim == 0 {
		v.dim = len(vec)
	}
	if len(vec) != v.dim {
		return fmt.Errorf("set vector %d: got %d, want %d: %w", doc, len(vec), v.dim, ErrDimension)
	}
	if int(doc) >= len(v.has) {
		grow := int(doc) + 1 - len(v.has)
		v.has = append(v.has, make([]bool, grow)...)
		v.data = append(v.data, make([]float32, grow*v.dim)...)
	}
	row := v.data[int(doc)*v.dim : (int(doc)+1)*v.dim]
	copy(row, vec)
	Normalize(row)
	if !v.has[doc] {
		v.n++
	}
	v.has[doc] = true
	return nil
}

// Clear drops doc's vector.
func (v *Vectors) Clear(doc int32) {
	if !v.Has(doc) {
		return
	}
	v.has[doc] = false
	v.n--
}

// Reset drops every vector and the fixed dimension.
func (v *Vectors) Reset() { *v = Vectors{} }

// Search returns the k documents whose vectors are most similar (cosine) to
// query, best first. Large stores are scanned on all CPUs.
func (v *Vectors) Search(query []float32, k int) ([]Hit, error) {
	if v.n == 0 || k <= 0 {
		return nil, nil
	}
	if len(query) != v.dim {
		return nil, fmt.Errorf("vector search: got %d, want %d: %w", len(query), v.dim, ErrDimension)
	}
	q := append([]float32(nil), query...)
	Normalize(q)
	rows := len(v.has)
	parts := 1
	if rows >= parallelRows {
		parts = min(runtime.GOMAXPROCS(0), rows/(parallelRows/2))
	}
	tops := make([]topK, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := rows*p/parts, rows*(p+1)/parts
		wg.Go(func() { tops[p] = v.scan(q, k, lo, hi) })
	}
	wg.Wait()
	merged := tops[0]
	for _, t := range tops[1:] {
		for _, h := range t.heap {
			merged.push(h)
		}
	}
	return merged.sorted(), nil
}

func (v *Vectors) scan(q []float32, k, lo, hi int) topK {
	top := newTopK(k)
	d := v.dim
	for i := lo; i < hi; i++ {
		if !v.has[i] {
			continue
		}
		s := Dot(q, v.data[i*d:(i+1)*d:(i+1)*d])
		if top.full() && s <= top.heap[0].Score {
			continue
		}
		top.push(Hit{Doc: int32(i), Score: s})
	}
	return top
}
