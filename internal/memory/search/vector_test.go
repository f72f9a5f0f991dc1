package search

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"identical", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"scaled", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"opposite", []float32{1, -1}, []float32{-1, 1}, -1},
		{"45 degrees", []float32{1, 0}, []float32{1, 1}, float32(1 / math.Sqrt2)},
		{"zero vector", []float32{0, 0}, []float32{1, 1}, 0},
		{"length mismatch", []float32{1}, []float32{1, 1}, 0},
		{"long unrolled", []float32{1, 1, 1, 1, 1, 1, 1, 1, 1}, []float32{1, 1, 1, 1, 1, 1, 1, 1, 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cosine(tt.a, tt.b); math.Abs(float64(got-tt.want)) > 1e-6 {
				t.Errorf("Cosine = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestVectorsSearch(t *testing.T) {
	var v Vectors
	for i, vec := range [][]float32{{1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 5}} {
		if err := v.Set(int32(i), vec); err != nil {
			t.Fatal(err)
		}
	}
	v.Clear(3)
	hits, err := v.Search([]float32{2, 0, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int32{0, 2}, docs(hits)); diff != "" {
		t.Errorf("docs (-want +got):\n%s", diff)
	}
	if math.Abs(float64(hits[0].Score)-1) > 1e-6 {
		t.Errorf("best score %v, want 1", hits[0].Score)
	}
	if err := v.Set(9, []float32{1, 2}); !errors.Is(err, ErrDimension) {
		t.Errorf("Set of wrong dimension: %v", err)
	}
	if _, err := v.Search([]float32{1}, 1); !errors.Is(err, ErrDimension) {
		t.Errorf("Search of wrong dimension: %v", err)
	}
}

func TestVectorsSearchParallelMatchesSerial(t *testing.T) {
	var v Vectors
	n := parallelRows * 2
	for i := range n {
		f := float32(i)
		if err := v.Set(int32(i), []float32{f, float32(n) - f, 1}); err != nil {
			t.Fatal(err)
		}
	}
	q := []float32{1, 0.01, 0}
	got, err := v.Search(q, 5)
	if err != nil {
		t.Fatal(err)
	}
	serial := v.scan(append([]float32(nil), q...), 5, 0, n)
	want := serial.sorted()
	if diff := cmp.Diff(docs(want), docs(got)); diff != "" {
		t.Errorf("parallel vs serial (-want +got):\n%s", diff)
	}
}

func TestDotMatchesGeneric(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 64, 255, 256, 1536} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(i%17)-8, float32(i%5)*0.25-0.5
		}
		got, want := Dot(a, b), dotGeneric(a, b)
		if math.Abs(float64(got-want)) > 1e-3*max(1, math.Abs(float64(want))) {
			t.Errorf("n=%d: Dot = %v, generic = %v", n, got, want)
		}
	}
}
