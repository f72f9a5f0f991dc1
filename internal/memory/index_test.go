package memory

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

var indexNotes = map[string]string{
	"deploy":  "Deploys go out with make release; the deployment pipeline runs on Fridays.",
	"editor":  "Alice prefers dark mode and vim key bindings in every editor.",
	"grocery": "Grocery list: oat milk, eggs, sourdough bread.",
	"backup":  "Database backups run nightly at 02:00 UTC to the cold bucket.",
}

func newTestIndex(emb beamclaw.Embedder) *Index {
	x := NewIndex(DefaultOptions().Search, emb)
	for k, v := range indexNotes {
		x.Set(k, v)
	}
	return x
}

func TestIndexModes(t *testing.T) {
	ctx := context.Background()
	x := newTestIndex(&hashEmbedder{})
	tests := []struct {
		name  string
		query Query
		first string
		mode  Mode
	}{
		{"keyword", Query{Text: "dark mode", Mode: ModeKeyword}, "editor", ModeKeyword},
		{"semantic matches word fragments", Query{Text: "deploying", Mode: ModeSemantic}, "deploy", ModeSemantic},
		{"hybrid default", Query{Text: "nightly database backup"}, "backup", ModeHybrid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := x.Search(ctx, tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if r.Degraded || r.Mode != tt.mode || len(r.Hits) == 0 {
				t.Fatalf("results = %+v", r)
			}
			if h := r.Hits[0]; h.Source != tt.first || h.Mode != tt.mode || h.Score <= 0 || h.Score > 1 {
				t.Errorf("first hit = %+v, want source %q", h, tt.first)
			}
			if h := r.Hits[0]; h.StartLine != 1 || h.EndLine != 1 {
				t.Errorf("line range = %d-%d", h.StartLine, h.EndLine)
			}
		})
	}
}

func TestIndexDegradesWithoutEmbedder(t *testing.T) {
	x := newTestIndex(nil)
	for _, mode := range []Mode{ModeSemantic, ModeHybrid} {
		r, err := x.Search(context.Background(), Query{Text: "grocery milk", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Degraded || r.Reason != ReasonNoEmbedder || r.Mode != ModeKeyword {
			t.Errorf("%s: results = %+v", mode, r)
		}
		if diff := cmp.Diff([]string{"grocery"}, sources(r.Hits)); diff != "" {
			t.Errorf("%s: sources (-want +got):\n%s", mode, diff)
		}
	}
}

func TestIndexDegradesWhenEmbedderFails(t *testing.T) {
	emb := &hashEmbedder{}
	x := newTestIndex(emb)
	boom := beamclaw.E("openai.Embed", beamclaw.KindUnavailable, "provider down", nil)
	emb.fail(boom)
	r, err := x.Search(context.Background(), Query{Text: "dark mode editor"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Degraded || r.Reason != ReasonEmbedderFailed || !errors.Is(r.Cause, boom) {
		t.Fatalf("results = %+v", r)
	}
	if len(r.Hits) == 0 || r.Hits[0].Source != "editor" || r.Hits[0].Mode != ModeKeyword {
		t.Errorf("hits = %+v", r.Hits)
	}

	emb.fail(nil)
	r, err = x.Search(context.Background(), Query{Text: "dark mode editor"})
	if err != nil || r.Degraded || r.Mode != ModeHybrid {
		t.Fatalf("after recovery: %+v, %v", r, err)
	}
}

func TestIndexSearchErrors(t *testing.T) {
	x := newTestIndex(&hashEmbedder{})
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := &hashEmbedder{err: context.Canceled}
	tests := []struct {
		name string
		x    *Index
		ctx  context.Context
		q    Query
		kind beamclaw.Kind
	}{
		{"empty query", x, context.Background(), Query{Text: "  "}, beamclaw.KindInvalid},
		{"bad mode", x, context.Background(), Query{Text: "x", Mode: "fuzzy"}, beamclaw.KindInvalid},
		{"cancelled", newTestIndex(cancelled), ctx, Query{Text: "x", Mode: ModeSemantic}, beamclaw.KindInternal},
	}
	cancel()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.x.Search(tt.ctx, tt.q)
			if err == nil || beamclaw.KindOf(err) != tt.kind {
				t.Errorf("err = %v (kind %v), want kind %v", err, beamclaw.KindOf(err), tt.kind)
			}
		})
	}
}

func TestIndexIncremental(t *testing.T) {
	ctx := context.Background()
	emb := &hashEmbedder{}
	x := NewIndex(DefaultOptions().Search, emb)
	if !x.Set("a", "alpha note") || !x.Set("b", "beta note") {
		t.Fatal("first Set reported no change")
	}
	if err := x.Embed(ctx); err != nil {
		t.Fatal(err)
	}
	_, texts := emb.counts()
	if texts != 2 {
		t.Fatalf("embedded %d texts, want 2", texts)
	}
	if x.Set("a", "alpha note") {
		t.Error("unchanged Set reported a change")
	}
	x.Set("b", "beta note, revised")
	if err := x.Embed(ctx); err != nil {
		t.Fatal(err)
	}
	if _, texts = emb.counts(); texts != 3 {
		t.Errorf("embedded %d texts in total, want 3 (only b re-embedded)", texts)
	}
	if !x.Remove("a") || x.Remove("a") {
		t.Error("Remove reported wrongly")
	}
	if diff := cmp.Diff([]string{"b"}, x.Sources()); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	r, err := x.Search(ctx, Query{Text: "alpha", Mode: ModeKeyword})
	if err != nil || len(r.Hits) != 0 {
		t.Errorf("removed source still found: %+v, %v", r, err)
	}
	if x.Len() != 1 {
		t.Errorf("Len = %d", x.Len())
	}
}

func TestIndexChunksLongSources(t *testing.T) {
	opts := DefaultOptions().Search
	opts.ChunkSize, opts.ChunkOverlap = 5, 1
	x := NewIndex(opts, nil)
	x.Set("MEMORY.md", "one two three four five\nsix seven eight nine ten\neleven twelve")
	r, err := x.Search(context.Background(), Query{Text: "twelve", Mode: ModeKeyword})
	if err != nil || len(r.Hits) != 1 {
		t.Fatalf("%+v, %v", r, err)
	}
	if h := r.Hits[0]; h.Text != "nine ten\neleven twelve" || h.StartLine != 2 || h.EndLine != 3 {
		t.Errorf("hit = %+v", h)
	}
}
