package scheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// TestTenThousandJobs proves (it measures nothing) that 10,000 active
// jobs work: in a synctest bubble, whose clock jumps to the next timer
// once every goroutine waits, each job runs exactly once, at its own
// instant, in due order. The runner holds one timer for all of them.
func TestTenThousandJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 jobs: not in -short")
	}
	const n = 10000
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	synctest.Test(t, func(t *testing.T) {
		db, err := store.Open(path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		turns := newFakeTurns()
		s, err := New(Options{DB: db, Turns: turns, Workers: 32, MaxJobsPerAgent: n})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		// 10,000 one-shots on 100 instants (100 each, fired in one
		// transaction, their records in a few group commits) over a day,
		// stored in one transaction in shuffled order.
		r := rand.New(rand.NewPCG(1, 2))
		order := r.Perm(n)
		err = s.area.Update(func(tx *store.Tx) error {
			for _, i := range order {
				in := time.Duration(i/100+1) * 14 * time.Minute
				j, err := s.newJob(AddRequest{Agent: fmt.Sprintf("agent-%d", i%100), UserID: "local:u",
					Schedule: "in " + fmt.Sprint(int(in.Seconds())) + "s", Prompt: fmt.Sprint(i), Delivery: "silent"}, now)
				if err != nil {
					return err
				}
				j.ID = fmt.Sprintf("job-%05d", i)
				if err := putJob(tx, j); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx) }()
		var got []Turn
		for len(got) < n {
			got = append(got, <-turns.called)
		}
		synctest.Wait()
		cancel()
		<-done

		if !slices.IsSortedFunc(got, func(a, b Turn) int { return a.Due.Compare(b.Due) }) {
			t.Error("turns did not come in due order")
		}
		seen := make(map[string]bool, n)
		for _, tn := range got {
			if seen[tn.JobID] {
				t.Fatalf("%s ran twice", tn.JobID)
			}
			seen[tn.JobID] = true
		}
		late := 0
		err = s.area.View(func(tx *store.Tx) error {
			return eachJob(tx, func(j Job) error {
				runs, err := lastRuns(tx, j.ID, 0)
				if err != nil {
					return err
				}
				if j.State != StateDone || len(runs) != 1 || runs[0].Outcome != OutcomeOK || !runs[0].Started.Equal(runs[0].Due) {
					late++
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if late != 0 {
			t.Errorf("%d of %d jobs did not run exactly once at their instant", late, n)
		}
	})
}

// BenchmarkSchedule10000 is the runner's in-memory work for 10,000
// active jobs of every kind: index them, then fire each once (pop, next
// instant, re-index).
func BenchmarkSchedule10000(b *testing.B) {
	now := t0
	specs := []string{"every 90s", "cron */5 * * * *", "random 4 per 1d", "in 3h"}
	scheds := make([]Schedule, 10000)
	for i := range scheds {
		s, err := ParseSchedule(specs[i%len(specs)], ParseOptions{Now: now, Seed: fmt.Sprint(i)})
		if err != nil {
			b.Fatal(err)
		}
		scheds[i] = s
	}
	ids := make([]string, len(scheds))
	byID := make(map[string]int, len(scheds))
	for i := range ids {
		ids[i] = fmt.Sprintf("job-%05d", i)
		byID[ids[i]] = i
	}
	b.ReportAllocs()
	for b.Loop() {
		idx := newIndex()
		for i, s := range scheds {
			idx.set(ids[i], s.Next(now))
		}
		fired := 0
		for fired < len(scheds) {
			at, _ := idx.earliest()
			for _, id := range idx.due(at, fireBatch) {
				idx.set(id, scheds[byID[id]].Next(at))
				fired++
			}
		}
	}
}
