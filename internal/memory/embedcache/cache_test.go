package embedcache

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// countingEmbedder returns [len(text), first byte] and records every text
// it was asked for.
type countingEmbedder struct {
	mu    sync.Mutex
	calls int
	texts []string
	err   error
}

func (e *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	e.texts = append(e.texts, texts...)
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		first := float32(0)
		if t != "" {
			first = float32(t[0])
		}
		out[i] = []float32{float32(len(t)), first}
	}
	return out, nil
}

func mustOpenDB(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

func mustNew(tb testing.TB, inner beamclaw.Embedder, opts Options) *Cache {
	tb.Helper()
	c, err := New(inner, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestEmbedDedupesAndCaches(t *testing.T) {
	inner := &countingEmbedder{}
	c := mustNew(t, inner, Options{Model: "m"})
	ctx := context.Background()
	got, err := c.Embed(ctx, []string{"ab", "xyz", "ab"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{2, 'a'}, {3, 'x'}, {2, 'a'}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if _, err := c.Embed(ctx, []string{"xyz", "ab"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ab", "xyz"}, inner.texts); diff != "" {
		t.Errorf("inner saw (-want +got):\n%s", diff)
	}
	got[0][0] = 99 // callers own their copies
	again, _ := c.Embed(ctx, []string{"ab"})
	if again[0][0] != 2 {
		t.Errorf("cached vector was modified through a returned slice")
	}
	if s := c.Stats(); s.Hits != 3 || s.Misses != 3 || s.Entries != 2 {
		t.Errorf("stats = %+v", s)
	}
}

func TestModelIsPartOfKey(t *testing.T) {
	inner := &countingEmbedder{}
	db := mustOpenDB(t, filepath.Join(t.TempDir(), "c.db"))
	defer db.Close()
	a := mustNew(t, inner, Options{Model: "a", DB: db})
	b := mustNew(t, inner, Options{Model: "b", DB: db})
	for _, c := range []*Cache{a, b} {
		if _, err := c.Embed(context.Background(), []string{"same"}); err != nil {
			t.Fatal(err)
		}
	}
	if inner.calls != 2 {
		t.Errorf("inner calls = %d, want 2 (one per model)", inner.calls)
	}
}

func TestPersistsAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	ctx := context.Background()
	inner := &countingEmbedder{}
	db := mustOpenDB(t, path)
	if _, err := mustNew(t, inner, Options{Model: "m", DB: db}).Embed(ctx, []string{"remember me"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpenDB(t, path)
	defer db.Close()
	got, err := mustNew(t, inner, Options{Model: "m", DB: db}).Embed(ctx, []string{"remember me"})
	if err != nil {
		t.Fatal(err)
	}
	if inner.calls != 1 {
		t.Errorf("inner calls = %d after reopen, want 1", inner.calls)
	}
	if diff := cmp.Diff([][]float32{{11, 'r'}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTTLExpiry(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	inner := &countingEmbedder{}
	db := mustOpenDB(t, filepath.Join(t.TempDir(), "c.db"))
	defer db.Close()
	c := mustNew(t, inner, Options{Model: "m", DB: db, TTL: time.Hour, Clock: clk})
	ctx := context.Background()
	embed := func() {
		t.Helper()
		if _, err := c.Embed(ctx, []string{"t"}); err != nil {
			t.Fatal(err)
		}
	}
	embed()
	clk.Advance(59 * time.Minute)
	embed()
	if inner.calls != 1 {
		t.Fatalf("calls before expiry = %d", inner.calls)
	}
	clk.Advance(time.Minute)
	embed()
	if inner.calls != 2 {
		t.Fatalf("calls after expiry = %d, want 2", inner.calls)
	}
	clk.Advance(2 * time.Hour)
	if err := c.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	if n := bucketLen(t, db, DefaultBucket); n != 0 {
		t.Errorf("bucket holds %d entries after prune, want 0", n)
	}
	if s := c.Stats(); s.Entries != 0 {
		t.Errorf("memory holds %d entries after prune", s.Entries)
	}
}

func bucketLen(t *testing.T, db *store.DB, name string) int {
	t.Helper()
	n := 0
	if err := db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte(name)).ForEach(func(_, _ []byte) error { n++; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBounded(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	db := mustOpenDB(t, filepath.Join(t.TempDir(), "c.db"))
	defer db.Close()
	c := mustNew(t, &countingEmbedder{}, Options{Model: "m", DB: db, MaxEntries: 3, Clock: clk})
	for _, s := range []string{"a", "bb", "ccc", "dddd", "eeeee"} {
		clk.Advance(time.Second)
		if _, err := c.Embed(context.Background(), []string{s}); err != nil {
			t.Fatal(err)
		}
	}
	if s := c.Stats(); s.Entries != 3 {
		t.Errorf("memory entries = %d, want 3", s.Entries)
	}
	if n := bucketLen(t, db, DefaultBucket); n != 3 {
		t.Errorf("bucket entries = %d, want 3", n)
	}
}

func TestErrors(t *testing.T) {
	boom := errors.New("boom")
	c := mustNew(t, &countingEmbedder{err: boom}, Options{})
	if _, err := c.Embed(context.Background(), []string{"x"}); !errors.Is(err, boom) {
		t.Errorf("Embed error = %v, want wrapped boom", err)
	}
	if _, err := New(nil, Options{}); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("New(nil) = %v", err)
	}
	short := mustNew(t, shortEmbedder{}, Options{})
	if _, err := short.Embed(context.Background(), []string{"x", "y"}); beamclaw.KindOf(err) != beamclaw.KindUnavailable {
		t.Errorf("wrong vector count: %v", err)
	}
}

type shortEmbedder struct{}

func (shortEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return [][]float32{{1}}, nil
}

func TestServeStopsOnCancel(t *testing.T) {
	c := mustNew(t, &countingEmbedder{}, Options{PruneInterval: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve = %v", err)
	}
	if c.String() == "" {
		t.Error("empty String")
	}
}
