package search

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var bm25Docs = []string{
	0: "The deploy script pushes the release to production servers",
	1: "Alice prefers dark mode in every editor",
	2: "Deploy deploy deploy: the word repeated many times in one short note",
	3: "Grocery list: milk, eggs, bread",
	4: "Production database backups run nightly at 02:00 UTC",
}

func newTestBM25() *BM25 {
	x := NewBM25(DefaultK1, DefaultB)
	for i, d := range bm25Docs {
		x.Add(int32(i), d)
	}
	return x
}

func docs(hits []Hit) []int32 {
	out := make([]int32, len(hits))
	for i, h := range hits {
		out[i] = h.Doc
	}
	return out
}

func TestBM25Ranking(t *testing.T) {
	x := newTestBM25()
	tests := []struct {
		name  string
		query string
		k     int
		want  []int32
	}{
		{"term frequency wins", "deploy", 10, []int32{2, 0}},
		{"two terms beat one", "production backups", 10, []int32{4, 0}},
		{"case and punctuation ignored", "DARK-MODE!", 10, []int32{1}},
		{"no match", "kubernetes", 10, []int32{}},
		{"stopwords only", "the and of", 10, []int32{}},
		{"k limits", "deploy production", 1, []int32{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := docs(x.Search(tt.query, tt.k))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Search(%q) docs (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

func TestBM25Score(t *testing.T) {
	x := NewBM25(DefaultK1, DefaultB)
	x.Add(0, "apple banana")
	x.Add(1, "cherry")
	hits := x.Search("apple", 5)
	// N=2, df=1: idf = ln(1 + 1.5/1.5) = ln 2; dl = avgdl*4/3; tf = 1.
	norm := 1.2 * (1 - 0.75 + 0.75*2/1.5)
	want := math.Log(2) * 1 * 2.2 / (1 + norm)
	if len(hits) != 1 || math.Abs(float64(hits[0].Score)-want) > 1e-5 {
		t.Fatalf("got %+v, want one hit scoring %v", hits, want)
	}
}

func TestBM25RemoveAndReuse(t *testing.T) {
	x := newTestBM25()
	x.Remove(2, bm25Docs[2])
	if got := docs(x.Search("deploy", 10)); !cmp.Equal(got, []int32{0}) {
		t.Fatalf("after remove: %v", got)
	}
	x.Add(2, "a fresh note about kubernetes")
	if got := docs(x.Search("kubernetes deploy", 10)); len(got) != 2 {
		t.Fatalf("after reuse: %v", got)
	}
	if x.Len() != len(bm25Docs) {
		t.Fatalf("Len = %d", x.Len())
	}
}
