package memory

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/setting"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

func mustOpenDB(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

type backendFactory func(t *testing.T, clk *clock.Fake) Backend

func backends() map[string]backendFactory {
	return map[string]backendFactory{
		"memory": func(t *testing.T, clk *clock.Fake) Backend {
			m, err := NewMemory("agent-1", testOptions(clk), &hashEmbedder{})
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
		"bbolt": func(t *testing.T, clk *clock.Fake) Backend {
			db := mustOpenDB(t, filepath.Join(t.TempDir(), "m.db"))
			t.Cleanup(func() { db.Close() })
			b, err := OpenBolt(context.Background(), db, "t_", "agent-1", testOptions(clk), &hashEmbedder{})
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
	}
}

func TestBackendContract(t *testing.T) {
	for name, newBackend := range backends() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
			clk := clock.NewFake(t0)
			b := newBackend(t, clk)
			mustStore := func(k, v string, c Category) {
				t.Helper()
				if err := b.Store(ctx, k, v, c); err != nil {
					t.Fatal(err)
				}
			}
			mustStore("tz", "User lives in Lisbon, timezone Europe/Lisbon", CategoryCore)
			clk.Set(t0.Add(time.Hour))
			mustStore("lunch", "Had ramen for lunch with Bob", CategoryDaily)
			mustStore("tz", "User moved to Tokyo, timezone Asia/Tokyo", CategoryCore)

			got, err := b.Get(ctx, "tz")
			if err != nil {
				t.Fatal(err)
			}
			want := Entry{Key: "tz", Value: "User moved to Tokyo, timezone Asia/Tokyo", Category: CategoryCore,
				CreatedAt: t0, UpdatedAt: t0.Add(time.Hour)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Get (-want +got):\n%s", diff)
			}

			recall := func(q string, c Category) []string {
				t.Helper()
				es, err := b.Recall(ctx, q, 10, c)
				if err != nil {
					t.Fatal(err)
				}
				keys := make([]string, len(es))
				for i, e := range es {
					keys[i] = e.Key
				}
				return keys
			}
			if diff := cmp.Diff([]string{"tz"}, recall("timezone", All)); diff != "" {
				t.Errorf("Recall timezone (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{}, recall("timezone", CategoryDaily)); diff != "" {
				t.Errorf("Recall timezone daily (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"lunch", "tz"}, recall("", All)); diff != "" {
				t.Errorf("Recall all (-want +got):\n%s", diff)
			}

			r, err := b.Search(ctx, Query{Text: "ramen lunch"})
			if err != nil || len(r.Hits) == 0 || r.Hits[0].Source != "lunch" || r.Hits[0].StartLine != 0 {
				t.Errorf("Search = %+v, %v", r, err)
			}

			if err := b.Forget(ctx, "lunch"); err != nil {
				t.Fatal(err)
			}
			if err := b.Forget(ctx, "never-stored"); err != nil {
				t.Errorf("Forget unknown: %v", err)
			}
			if _, err := b.Get(ctx, "lunch"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
				t.Errorf("Get forgotten: %v", err)
			}
			if r, _ := b.Search(ctx, Query{Text: "ramen", Mode: ModeKeyword}); len(r.Hits) != 0 {
				t.Errorf("forgotten entry still searchable: %+v", r.Hits)
			}
		})
	}
}

func TestBackendInvalid(t *testing.T) {
	for name, newBackend := range backends() {
		t.Run(name, func(t *testing.T) {
			b := newBackend(t, clock.NewFake(time.Now()))
			ctx := context.Background()
			tests := []struct {
				name string
				err  error
			}{
				{"empty key", b.Store(ctx, "", "v", CategoryCore)},
				{"bad category", b.Store(ctx, "k", "v", "secret")},
				{"bad recall category", func() error { _, err := b.Recall(ctx, "", 1, "x"); return err }()},
			}
			for _, tt := range tests {
				if beamclaw.KindOf(tt.err) != beamclaw.KindInvalid {
					t.Errorf("%s: err = %v", tt.name, tt.err)
				}
			}
		})
	}
	if _, err := NewMemory("", DefaultOptions(), nil); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("NewMemory empty agent: %v", err)
	}
}

func TestBoltReopenAndScope(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	opts := testOptions(clock.NewFake(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)))
	db := mustOpenDB(t, path)
	a, err := OpenBolt(ctx, db, "bc_", "alice", opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Store(ctx, "pet", "a cat named Miso", CategoryCore); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = mustOpenDB(t, path)
	defer db.Close()
	a, err = OpenBolt(ctx, db, "bc_", "alice", opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := a.Get(ctx, "pet")
	if err != nil || e.Value != "a cat named Miso" {
		t.Fatalf("after reopen: %+v, %v", e, err)
	}
	r, err := a.Search(ctx, Query{Text: "Miso"})
	if err != nil || len(r.Hits) != 1 || !r.Degraded {
		t.Errorf("search after reopen: %+v, %v", r, err)
	}
	bob, err := OpenBolt(ctx, db, "bc_", "bob", opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Get(ctx, "pet"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("bob sees alice's memory: %v", err)
	}

	var raw map[string]any
	if err := db.View(func(tx *bbolt.Tx) error {
		return json.Unmarshal(tx.Bucket([]byte("bc_memory")).Bucket([]byte("alice")).Get([]byte("pet")), &raw)
	}); err != nil {
		t.Fatal(err)
	}
	if raw["v"] != float64(1) || raw["category"] != "core" {
		t.Errorf("stored JSON = %v", raw)
	}
}

func TestBoltRejectsUnknownVersion(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t, filepath.Join(t.TempDir(), "m.db"))
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error {
		top, err := tx.CreateBucketIfNotExists([]byte("memory"))
		if err != nil {
			return err
		}
		ab, err := top.CreateBucketIfNotExists([]byte("a"))
		if err != nil {
			return err
		}
		return ab.Put([]byte("k"), []byte(`{"v":2,"key":"k"}`))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBolt(ctx, db, "", "a", DefaultOptions(), nil); err == nil {
		t.Error("OpenBolt accepted a version 2 entry")
	}
	if _, err := OpenBolt(ctx, nil, "", "a", DefaultOptions(), nil); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("nil db: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	var ok setting.Problems
	DefaultConfig().Validate(&ok)
	if err := ok.Err(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	c := DefaultConfig()
	c.Backend = "redis"
	c.Search.ChunkOverlap = c.Search.ChunkSize
	c.Search.MinScore = 2
	c.Embedding.CacheTTLSeconds = -1
	var p setting.Problems
	c.Validate(p.Under("memory"))
	for _, want := range []string{"memory.backend", "memory.search.chunk_overlap", "memory.search.min_score", "memory.embedding.cache_ttl_seconds"} {
		if err := p.Err(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want a problem about %s", err, want)
		}
	}
}
