package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchVocab builds n pseudo-words; benchText draws from it with a skewed
// (roughly Zipfian) distribution so that postings look like real text.
func benchVocab(n int) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = fmt.Sprintf("w%x", i*2654435761%1000003)
	}
	return v
}

func benchText(r *rand.Rand, vocab []string, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		// Squaring a uniform draw favours low ranks.
		u := r.Float64()
		b.WriteString(vocab[int(u*u*float64(len(vocab)))])
	}
	return b.String()
}

// benchIndex indexes n chunks of about 40 words with 256-dim vectors.
func benchIndex(tb testing.TB, n int) *Index {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, uint64(n)))
	vocab := benchVocab(20000)
	x := NewIndex(DefaultOptions().Search, &hashEmbedder{})
	for i := range n {
		x.Set(fmt.Sprintf("note-%d", i), benchText(r, vocab, 30+r.IntN(20)))
	}
	if err := x.Embed(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return x
}

// reportPercentiles times each call of fn over b.Loop and reports p50 and
// p99 latencies in microseconds alongside ns/op.
func reportPercentiles(b *testing.B, fn func(i int)) {
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		fn(i)
		lat = append(lat, time.Since(start))
		i++
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

func BenchmarkSearch(b *testing.B) {
	vocab := benchVocab(20000)
	r := rand.New(rand.NewPCG(7, 7))
	queries := make([]string, 256)
	for i := range queries {
		queries[i] = benchText(r, vocab, 2+r.IntN(3))
	}
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		x := benchIndex(b, n)
		for _, mode := range []Mode{ModeKeyword, ModeSemantic, ModeHybrid} {
			b.Run(fmt.Sprintf("%s/chunks=%d", mode, n), func(b *testing.B) {
				b.ReportAllocs()
				reportPercentiles(b, func(i int) {
					res, err := x.Search(ctx, Query{Text: queries[i%len(queries)], Mode: mode})
					if err != nil || res.Degraded {
						b.Fatalf("search: %+v %v", res, err)
					}
				})
			})
		}
	}
}

// BenchmarkIndexUpdate measures re-indexing a changed 100 KB MEMORY.md:
// chunking, BM25 postings and embedding (with the in-process test
// embedder, so provider latency is excluded).
func BenchmarkIndexUpdate(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	vocab := benchVocab(20000)
	var versions [2]string
	for i := range versions {
		var sb strings.Builder
		for sb.Len() < 100*1024 {
			sb.WriteString(benchText(r, vocab, 12))
			sb.WriteString(".\n")
		}
		versions[i] = sb.String()
	}
	x := NewIndex(DefaultOptions().Search, &hashEmbedder{})
	ctx := context.Background()
	b.SetBytes(int64(len(versions[0])))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		x.Set("MEMORY.md", versions[i%2])
		if err := x.Embed(ctx); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
