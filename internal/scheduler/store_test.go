package scheduler

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func seqs(rs []Run) []uint64 {
	var out []uint64
	for _, r := range rs {
		out = append(out, r.Seq)
	}
	return out
}

func TestRunHistory(t *testing.T) {
	a, err := openArea(openStore(t))
	if err != nil {
		t.Fatal(err)
	}
	err = a.Update(func(tx *store.Tx) error {
		if err := putJob(tx, Job{ID: "job-1", State: StateActive}); err != nil {
			return err
		}
		for range 10 {
			if _, err := addRun(tx, "job-1", Run{Outcome: OutcomeOK}, 3); err != nil {
				return err
			}
		}
		rs, err := lastRuns(tx, "job-1", 0)
		if err != nil {
			return err
		}
		if got := seqs(rs); len(got) != 3 || got[0] != 10 || got[2] != 8 {
			t.Errorf("kept %v, want [10 9 8]", got)
		}
		if err := updateRun(tx, "job-1", Run{Seq: 2, Outcome: OutcomeFailed}); err != nil {
			return err
		}
		if _, ok, _ := getRun(tx, "job-1", 2); ok {
			t.Error("updating a pruned run brought it back")
		}
		if err := dropRun(tx, "job-1", 9); err != nil {
			return err
		}
		prev, ok, err := prevRun(tx, "job-1", 10)
		if err != nil || !ok || prev.Seq != 8 {
			t.Errorf("prevRun(10) = %d %v %v, want 8 across the gap", prev.Seq, ok, err)
		}
		if _, ok, _ := prevRun(tx, "job-1", 8); ok {
			t.Error("prevRun(8) found one before the oldest")
		}
		if rs, _ := lastRuns(tx, "job-1", 1); len(rs) != 1 || rs[0].Seq != 10 {
			t.Errorf("lastRuns limit 1 = %v", seqs(rs))
		}
		if err := deleteJob(tx, "job-1"); err != nil {
			return err
		}
		if rs, _ := lastRuns(tx, "job-1", 0); len(rs) != 0 {
			t.Errorf("runs of a deleted job: %v", seqs(rs))
		}
		_, ok, err = getJob(tx, "job-1")
		if ok || err != nil {
			t.Errorf("deleted job found %v, %v", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFinishedJobsArePruned: done jobs older than RetainFinished go when
// the runner starts; recent ones stay.
func TestFinishedJobsArePruned(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RetainFinished = 24 * time.Hour })
	old := e.add(AddRequest{Schedule: "every 1h"})
	if _, err := e.s.Cancel(t.Context(), old.ID); err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(48 * time.Hour)
	recent := e.add(AddRequest{Schedule: "every 1h"})
	if _, err := e.s.Cancel(t.Context(), recent.ID); err != nil {
		t.Fatal(err)
	}
	e.start()
	e.park()
	js, err := e.s.List(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 1 || js[0].ID != recent.ID {
		t.Errorf("after pruning: %+v", js)
	}
}
