package a2a

import (
	"bytes"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/store"
)

// msgInterrupted is the status message of a task whose run ended with the
// process that ran it.
const msgInterrupted = "Interrupted: the agent's daemon stopped before this task finished. Send the message again (as a new task) to retry."

// recoverTasks fails every task left unfinished on disk whose run is
// gone: alone, every one (the process that ran it crashed or stopped); in
// a cluster, this node's own (it restarted), those from before the
// cluster, and those of nodes that do not answer (alive; nil: none
// checked). It runs before the edge serves, and returns how many it
// failed.
func (s *TaskStore) recoverTasks(alive map[string]bool) (int, error) {
	now := s.clock.Now()
	n := 0
	gone := func(rec *taskRecord) bool {
		return s.node == "" || rec.Node == "" || rec.Node == s.node || (alive != nil && !alive[rec.Node])
	}
	err := s.area.Update(func(tx *store.Tx) error {
		n = 0
		var stale []*taskRecord
		err := tx.Bucket([]byte(bucketTasks)).ForEach(func(_, v []byte) error {
			var rec taskRecord
			if err := store.Decode(v, &rec); err != nil {
				return err
			}
			if !rec.State.Terminal() && gone(&rec) {
				stale = append(stale, &rec)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, rec := range stale {
			t, err := rec.task()
			if err != nil {
				return err
			}
			at := now
			t.Status = a2a.TaskStatus{State: a2a.TaskStateFailed, Timestamp: &at,
				Message: agentMessage(t, msgInterrupted)}
			next := *rec
			if err := next.setTask(t); err != nil {
				return err
			}
			next.Version++
			next.Updated = now
			if err := putTask(tx, &next, now); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return 0, storeErr("recover the tasks", err)
	}
	return n, nil
}

// sweep deletes finished tasks (with their push configs) and contexts
// last used before cutoff, and returns how many tasks went.
func (s *TaskStore) sweep(cutoff time.Time) (int, error) {
	n := 0
	err := s.area.Update(func(tx *store.Tx) error {
		n = 0
		tb, ib, pb, cb := tx.Bucket([]byte(bucketTasks)), tx.Bucket([]byte(bucketIndex)),
			tx.Bucket([]byte(bucketPush)), tx.Bucket([]byte(bucketContexts))
		var gone []taskRecord
		err := tb.ForEach(func(_, v []byte) error {
			var rec taskRecord
			if err := store.Decode(v, &rec); err != nil {
				return err
			}
			if rec.State.Terminal() && rec.Updated.Before(cutoff) {
				gone = append(gone, rec)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, rec := range gone {
			if err := tb.Delete([]byte(rec.ID)); err != nil {
				return err
			}
			if err := ib.Delete(indexKey(rec.Owner, rec.Agent, rec.Updated, rec.ID)); err != nil {
				return err
			}
			if err := deletePrefix(pb, pushPrefix(rec.ID)); err != nil {
				return err
			}
			n++
		}
		var oldContexts [][]byte
		err = cb.ForEach(func(k, v []byte) error {
			var cr contextRecord
			if err := store.Decode(v, &cr); err != nil {
				return err
			}
			if cr.Used.Before(cutoff) {
				oldContexts = append(oldContexts, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range oldContexts {
			if err := cb.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, storeErr("delete old tasks", err)
	}
	return n, nil
}

// deletePrefix deletes every key of b that starts with prefix.
func deletePrefix(b *store.Bucket, prefix []byte) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// pushPrefix is the key prefix of a task's push configs.
func pushPrefix(id a2a.TaskID) []byte { return append([]byte(id), 0) }

// agentMessage is a message of the agent within t's task and context.
func agentMessage(t a2a.TaskInfoProvider, text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, t, a2a.NewTextPart(text))
}
