package search

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestNormalizeScores(t *testing.T) {
	tests := []struct {
		name string
		in   []Hit
		want []float64
	}{
		{"empty", nil, []float64{}},
		{"scaled by max", []Hit{{0, 4}, {1, 2}, {2, 1}}, []float64{1, 0.5, 0.25}},
		{"negative min stretches", []Hit{{0, 0.5}, {1, -0.5}}, []float64{1, 0}},
		{"all equal positive", []Hit{{0, 3}, {1, 3}}, []float64{1, 1}},
		{"all zero", []Hit{{0, 0}}, []float64{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, NormalizeScores(tt.in), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	bm := []Hit{{Doc: 1, Score: 8}, {Doc: 2, Score: 4}, {Doc: 3, Score: 1}}
	vec := []Hit{{Doc: 2, Score: 0.9}, {Doc: 4, Score: 0.45}, {Doc: 1, Score: 0.3}}
	w := Weights{Vector: 0.7, BM25: 0.3, MinScore: 0.35, Limit: 6}
	// doc 2: 0.7*1 + 0.3*0.5 = 0.85; doc 1: 0.7*(0.3/0.9) + 0.3*1 = 0.5333;
	// doc 4: 0.7*0.5 = 0.35 (kept: not below min); doc 3: 0.3*0.125 dropped.
	want := []Merged{
		{Doc: 2, Score: 0.85, Keyword: 0.5, Vector: 1},
		{Doc: 1, Score: 0.7*(0.3/0.9) + 0.3, Keyword: 1, Vector: 0.3 / 0.9},
		{Doc: 4, Score: 0.35, Vector: 0.5},
	}
	got := Merge(bm, vec, w)
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	w.Limit = 1
	if got := Merge(bm, vec, w); len(got) != 1 || got[0].Doc != 2 {
		t.Errorf("limit 1: %+v", got)
	}
}

func TestMergeKeywordOnly(t *testing.T) {
	bm := []Hit{{Doc: 7, Score: 2}, {Doc: 8, Score: 1}, {Doc: 9, Score: 0.5}}
	got := Merge(bm, nil, Weights{BM25: 1, MinScore: 0.35})
	want := []int32{7, 8}
	gotDocs := make([]int32, len(got))
	for i, m := range got {
		gotDocs[i] = m.Doc
		if math.Abs(m.Score-m.Keyword) > 1e-12 {
			t.Errorf("doc %d: score %v != keyword %v", m.Doc, m.Score, m.Keyword)
		}
	}
	if diff := cmp.Diff(want, gotDocs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
