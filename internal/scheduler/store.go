package scheduler

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// The buckets this package owns: sched_jobs maps a job id to its Job;
// sched_runs holds one sub-bucket per job id mapping a run's sequence
// number (store.Seq) to its Run, pruned to the newest Options.RunHistory.
var (
	bucketJobs = []byte("sched_jobs")
	bucketRuns = []byte("sched_runs")
)

func createBuckets(db *store.DB) error {
	return db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketJobs, bucketRuns, bucketMissed} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("scheduler: bucket %s: %w", name, err)
			}
		}
		return nil
	})
}

func getJob(tx *bolt.Tx, id string) (Job, bool, error) {
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

func putJob(tx *bolt.Tx, j Job) error {
	v, err := store.Encode(j)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	return tx.Bucket(bucketJobs).Put([]byte(j.ID), v)
}

func deleteJob(tx *bolt.Tx, id string) error {
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
func eachJob(tx *bolt.Tx, fn func(Job) error) error {
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
func addRun(tx *bolt.Tx, jobID string, r Run, keep int) (uint64, error) {
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
func updateRun(tx *bolt.Tx, jobID string, r Run) error {
	b := tx.Bucket(bucketRuns).Bucket([]byte(jobID))
	if b == nil || b.Get(store.Seq(r.Seq)) == nil {
		return nil
	}
	return putRunIn(b, r)
}

func getRun(tx *bolt.Tx, jobID string, seq uint64) (Run, bool, error) {
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

func putRunIn(b *bolt.Bucket, r Run) error {
	v, err := store.Encode(r)
	if err != nil {
		return fmt.Errorf("run %d: %w", r.Seq, err)
	}
	return b.Put(store.Seq(r.Seq), v)
}

// lastRuns returns up to limit runs of a job, newest first.
func lastRuns(tx *bolt.Tx, jobID string, limit int) ([]Run, error) {
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
func dropRun(tx *bolt.Tx, jobID string, seq uint64) error {
	b := tx.Bucket(bucketRuns).Bucket([]byte(jobID))
	if b == nil {
		return nil
	}
	return b.Delete(store.Seq(seq))
}

// prevRun returns the newest run stored before seq.
func prevRun(tx *bolt.Tx, jobID string, seq uint64) (Run, bool, error) {
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
