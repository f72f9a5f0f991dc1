package memory

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

type qualitySet struct {
	Notes []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"notes"`
	Queries []struct {
		Q      string   `json:"q"`
		Expect []string `json:"expect"`
	} `json:"queries"`
}

func loadQualitySet(t *testing.T) qualitySet {
	t.Helper()
	raw, err := os.ReadFile("testdata/quality.json")
	if err != nil {
		t.Fatal(err)
	}
	var s qualitySet
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Notes) < 30 || len(s.Queries) < 15 {
		t.Fatalf("quality set too small: %d notes, %d queries", len(s.Notes), len(s.Queries))
	}
	return s
}

// TestSearchQuality reports recall@5 (the share of expected notes found in
// the top five, averaged over queries) for each mode on a labelled set,
// with loose floors only: the numbers are logged for the docs.
func TestSearchQuality(t *testing.T) {
	set := loadQualitySet(t)
	x := NewIndex(DefaultOptions().Search, &hashEmbedder{})
	for _, n := range set.Notes {
		x.Set(n.ID, n.Text)
	}
	floors := map[Mode]float64{ModeKeyword: 0.5, ModeSemantic: 0.4, ModeHybrid: 0.5}
	for _, mode := range []Mode{ModeKeyword, ModeSemantic, ModeHybrid} {
		total := 0.0
		for _, q := range set.Queries {
			r, err := x.Search(context.Background(), Query{Text: q.Q, Mode: mode, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if r.Degraded {
				t.Fatalf("%s degraded: %s", mode, r.Reason)
			}
			found := 0
			for _, want := range q.Expect {
				for _, h := range r.Hits {
					if h.Source == want {
						found++
						break
					}
				}
			}
			total += float64(found) / float64(len(q.Expect))
		}
		recall := total / float64(len(set.Queries))
		t.Logf("recall@5 %-8s = %.3f (%d queries, %d notes)", mode, recall, len(set.Queries), len(set.Notes))
		if recall < floors[mode] {
			t.Errorf("recall@5 %s = %.3f, below floor %.2f", mode, recall, floors[mode])
		}
	}
}
