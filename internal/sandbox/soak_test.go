package sandbox

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestThousandRunsLeaveOnlyLiveScopes: 1,000 runs over 10 sessions, four
// at a time, some failing, timing out or leaving children behind, leave
// exactly one container per session and no stray process in any; when
// the services stop, none (startManager checks).
func TestThousandRunsLeaveOnlyLiveScopes(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 sandbox runs take about a minute; skipped with -short")
	}
	m := startManager(t, testOptions(t))
	const runs, sessions, workers = 1000, 10, 4
	scripts := []Script{
		{Language: LangPython, Code: "print(sum(range(100)))"},
		{Language: LangSh, Code: "echo hi; sleep 100 &"},
		{Language: LangPython, Code: "import sys; sys.exit(2)"},
		{Language: LangSh, Code: "sleep 10", Timeout: 100 * time.Millisecond},
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= runs {
					return
				}
				s := scripts[i%int64(len(scripts))]
				if _, err := m.Run(context.Background(), caller(fmt.Sprintf("soak-%d", i%sessions)), s); err != nil {
					failed.Add(1)
					t.Errorf("run %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d runs failed", failed.Load(), runs)
	}
	if n := countContainers(t, m.opts.InstallID); n != sessions {
		t.Fatalf("%d containers after %d runs, want %d (one per live session)", n, runs, sessions)
	}
	for s := 0; s < sessions; s++ {
		if left := mustRun(t, m, caller(fmt.Sprintf("soak-%d", s)), LangPython, countProcs); strings.TrimSpace(left.Stdout) != "0" {
			t.Errorf("session %d: processes left behind: %s", s, left.Stdout)
		}
	}
}

// BenchmarkExec measures, through Manager.Run, the first exec of a scope
// (container start included) and warm execs, reporting p50 and p99:
//
//	go test -run '^$' -bench Exec -benchtime 100x ./internal/sandbox/
//
// Numbers depend on the machine; tests never assert them.
func BenchmarkExec(b *testing.B) {
	m := startManager(b, testOptions(b))
	ctx := context.Background()
	measure := func(b *testing.B, s Script, session func(i int) string, after func(i int)) {
		d := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			start := time.Now()
			res, err := m.Run(ctx, caller(session(i)), s)
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("run: %v %s", err, dump(res))
			}
			d = append(d, time.Since(start))
			after(i)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		b.ReportMetric(ms(d[len(d)/2]), "p50-ms")
		b.ReportMetric(ms(d[(len(d)*99)/100]), "p99-ms")
		b.ReportMetric(0, "ns/op")
	}
	b.Run("first", func(b *testing.B) {
		name := func(i int) string { return fmt.Sprintf("bench-first-%d-%d", b.N, i) }
		measure(b, Script{Language: LangSh, Code: "true"}, name, func(i int) { m.Release(caller(name(i))) })
	})
	for _, lang := range []string{LangPython, LangSh} {
		b.Run("warm-"+lang, func(b *testing.B) {
			code := map[string]string{LangPython: "print(1)", LangSh: "echo 1"}[lang]
			s := Script{Language: lang, Code: code}
			if _, err := m.Run(ctx, caller("bench-warm"), s); err != nil {
				b.Fatal(err)
			}
			measure(b, s, func(int) string { return "bench-warm" }, func(int) {})
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
