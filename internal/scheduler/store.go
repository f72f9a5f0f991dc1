package scheduler

import (
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// The buckets this package owns: sched_jobs maps a job id to its Job;
// sched_runs holds one sub-bucket per job id mapping a run's sequence
// number (store.Seq) to its Run, pruned to the newest Options.RunHistory.
var (
	bucketJobs = []byte("sched_jobs")
	bucketRuns = []byte("sched_runs")
)

// openArea opens the scheduler's buckets as one area: in cluster mode
// every node's replica of one state (ADR-045).
func openArea(db *store.DB) (*store.Area, error) {
	a, err := db.Area("scheduler", string(bucketJobs), string(bucketRuns), string(bucketMissed))
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	return a, nil
}

func getJob(tx *store.Tx, id string) (Job, bool, error) {
	v := tx.Bucket(bucketJobs).Get([]byte(id))
	if v == nil {
		return Job{}, false, nil
	}
	var j Job
	if err := store.Decode(v, &j); err != nil {
		return Job{}, false, fmt.Errorf("job %s: %w", id, err)
	}
	return j, true, nil
}

func putJob(tx *store.Tx, j Job) error {
	v, err := store.Encode(j)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	return tx.Bucket(bucketJobs).Put([]byte(j.ID), v)
}

func deleteJob(tx *store.Tx, id string) error {
	if err := tx.Bucket(bucketJobs).Delete([]byte(id)); err != nil {
		return err
	}
	runs := tx.Bucket(bucketRuns)
	if runs.Bucket([]byte(id)) == nil {
		return nil
	}
	return runs.DeleteBucket([]byte(id))
}

// eachJob calls fn for every stored job, in id order.
func eachJob(tx *store.Tx, fn func(Job) error) error {
	return tx.Bucket(bucketJobs).ForEach(func(k, v []byte) error {
		var j Job
		if err := store.Decode(v, &j); err != nil {
			return fmt.Errorf("job %s: %w", k, err)
		}
		return fn(j)
	})
}

// addRun stores r as the job's newest run, numbering it, and drops the
// oldest beyond keep. It returns r's sequence number.
func addRun(tx *store.Tx, jobID string, r Run, keep int) (uint64, error) {
	b, err := tx.Bucket(bucketRuns).CreateBucketIfNotExists([]byte(jobID))
	if err != nil {
		return 0, err
	}
	seq, err := b.NextSequence()
	if err != nil {
		return 0, err
	}
	r.Seq = seq
	if err := putRunIn(b, r); err != nil {
		return 0, err
	}
	c := b.Cursor()
	for k, _ := c.First(); k != nil && store.SeqOf(k)+uint64(keep) <= seq; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return 0, err
		}
	}
	return seq, nil
}

// updateRun rewrites a stored run (if it was not pruned).
func updateRun(tx *store.Tx, jobID string, r Run) error {
	b := tx.Bucket(bucketRuns).Bucket([]byte(jobID))
	if b == nil || b.Get(store.Seq(r.Seq)) == nil {
		return nil
	}
	return putRunIn(b, r)
}

func getRun(tx *store.Tx, jobID string, seq uint64) (Run, bool, error) {
	b := tx.Bucket(bucketRuns).Bucket([]byte(jobID))
	if b == nil {
		return Run{}, false, nil
	}
	v := b.Get(store.Seq(seq))
	if v == nil {
		return Run{}, false, nil
	}
	var r Run
	if err := store.Decode(v, &r); err != nil {
		return Run{}, false, fmt.Errorf("run %s/%d: %w", jobID, seq, err)
	}
	return r, true, nil
}

func putRunIn(b *store.Bucket, r Run) error {
	v, err := store.Encode(r)
	if err != nil {
		return fmt.Errorf("run %d: %w", r.Seq, err)
	}
	return b.Put(store.Seq(r.Seq), v)
}

// lastRuns returns up to limit runs of a job, newest first.
func lastRuns(tx *store.Tx, jobID string, limit int) ([]Run, error) {
	b := tx.Bucket(bucketRuns).Bucket([]byte(jobID))
	if b == nil {
		return nil, nil
	}
	var out []Run
	c := b.Cursor()
	for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
		var r Run
		if err := store.Decode(v, &r); err != nil {
			return nil, fmt.Errorf("run %s/%d: %w", jobID, store.SeqOf(k), err)
		}
		out = append(out, r)
	}
	return out, nil
}

// dropRun deletes one run entry.
func dropRun(tx *store.Tx, jobID string, seq uint64) error {
	b := tx.Bucket(bucketRuns).Bucket([]byte(jobID))
	if b == nil {
		return nil
	}
	return b.Delete(store.Seq(seq))
}

// prevRun returns the newest run stored before seq.
func prevRun(tx *store.Tx, jobID string, seq uint64) (Run, bool, error) {
	b := tx.Bucket(bucketRuns).Bucket([]byte(jobID))
	if b == nil {
		return Run{}, false, nil
	}
	c := b.Cursor()
	k, _ := c.Seek(store.Seq(seq))
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	for k != nil && store.SeqOf(k) >= seq {
		k, _ = c.Prev()
	}
	if k == nil {
		return Run{}, false, nil
	}
	return getRun(tx, jobID, store.SeqOf(k))
}
