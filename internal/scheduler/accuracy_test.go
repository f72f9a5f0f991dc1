package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// BenchmarkTimerAccuracy measures, on the real clock and a real bbolt
// file, how late runs start with 10,000 active jobs: 1,000 one-shots due
// at random milliseconds over the next 10 s among 9,000 hourly jobs not
// due yet (p50 and p99 of start minus due), then the process's CPU while
// the 10,000 jobs wait (idle_cpu_pct). Turns answer at once, so this is
// the scheduler's own cost. Run it alone:
//
//	go test -run '^$' -bench TimerAccuracy -benchtime 1x ./internal/scheduler/
func BenchmarkTimerAccuracy(b *testing.B) {
	for b.Loop() {
		late, idle := measureTimers(b)
		b.ReportMetric(float64(pct(late, 50).Microseconds())/1000, "p50_late_ms")
		b.ReportMetric(float64(pct(late, 99).Microseconds())/1000, "p99_late_ms")
		b.ReportMetric(float64(late[len(late)-1].Microseconds())/1000, "max_late_ms")
		b.ReportMetric(idle, "idle_cpu_pct")
	}
}

func measureTimers(b *testing.B) ([]time.Duration, float64) {
	const total, due, window = 10000, 1000, 10 * time.Second
	db, err := store.Open(filepath.Join(b.TempDir(), "beamclaw.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var late []time.Duration
	done := make(chan struct{})
	turns := newFakeTurns()
	turns.setAnswer(func(_ context.Context, t Turn) (Result, error) {
		mu.Lock()
		late = append(late, time.Since(t.Due))
		if len(late) == due {
			close(done)
		}
		mu.Unlock()
		return Result{Text: "ok"}, nil
	})
	s, err := New(Options{DB: db, Turns: turns, MaxJobsPerAgent: total})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	start := now.Add(time.Second) // after the runner has started
	r := rand.New(rand.NewPCG(3, 4))
	err = s.area.Update(func(tx *store.Tx) error {
		for i := range total {
			spec := "every 1h"
			if i < due {
				spec = "in 3600s"
			}
			j, err := s.newJob(AddRequest{Agent: fmt.Sprintf("agent-%d", i%100), UserID: "local:u",
				Schedule: spec, Prompt: "p", Delivery: "silent"}, now)
			if err != nil {
				return err
			}
			if i < due { // a one-shot at a random millisecond of the window
				at := start.Add(time.Duration(r.Int64N(int64(window/time.Millisecond))) * time.Millisecond)
				j.Schedule.At, j.NextRunAt = at, at
			}
			j.ID = fmt.Sprintf("job-%05d", i)
			if err := putJob(tx, j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	defer func() {
		cancel()
		<-served
	}()
	select {
	case <-done:
	case <-time.After(window + 30*time.Second):
		b.Fatalf("only %d of %d runs started", len(turns.all()), due)
	}
	// Idle: the 9,000 hourly jobs wait; measure the process's CPU.
	cpu0, t0 := cpuTime(b), time.Now()
	time.Sleep(5 * time.Second) // the measured idle period itself
	idle := float64(cpuTime(b)-cpu0) / float64(time.Since(t0)) * 100
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(late)
	return late, idle
}

func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
