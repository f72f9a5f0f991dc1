package a2a

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// indexEntry is what listing needs of a task without reading it.
type indexEntry struct {
	State    a2a.TaskState `json:"state"`
	Context  string        `json:"context"`
	StatusAt *time.Time    `json:"status_at,omitempty"`
}

// setTask stores t (as its own JSON) and the fields read from it.
func (r *taskRecord) setTask(t *a2a.Task) error {
	raw, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", t.ID, err)
	}
	r.ID, r.Task, r.State, r.Context, r.StatusAt = t.ID, raw, t.Status.State, t.ContextID, t.Status.Timestamp
	return nil
}

// task decodes a fresh copy of the record's task.
func (r *taskRecord) task() (*a2a.Task, error) {
	var t a2a.Task
	if err := json.Unmarshal(r.Task, &t); err != nil {
		return nil, fmt.Errorf("decode task %s: %w", r.ID, err)
	}
	return &t, nil
}

// indexKey orders a caller's tasks of one agent newest first.
func indexKey(owner, agent string, updated time.Time, id a2a.TaskID) []byte {
	k := indexPrefix(owner, agent)
	k = binary.BigEndian.AppendUint64(k, uint64(math.MaxInt64-updated.UnixNano()))
	return append(k, id...)
}

func indexPrefix(owner, agent string) []byte {
	k := make([]byte, 0, len(owner)+len(agent)+2+8+36)
	k = append(k, owner...)
	k = append(k, 0)
	k = append(k, agent...)
	return append(k, 0)
}

// splitIndexKey returns the update time and task id of a key under prefix.
func splitIndexKey(prefix, k []byte) (time.Time, a2a.TaskID, bool) {
	rest, ok := bytes.CutPrefix(k, prefix)
	if !ok || len(rest) < 8 {
		return time.Time{}, "", false
	}
	nanos := math.MaxInt64 - int64(binary.BigEndian.Uint64(rest[:8]))
	return time.Unix(0, nanos), a2a.TaskID(rest[8:]), true
}

// read returns the record of id on disk.
func (s *TaskStore) read(id a2a.TaskID) (*taskRecord, bool, error) {
	return s.readFrom(s.area.View, id)
}

// readLatest is read once the replica caught up with the cluster (what
// another node just wrote).
func (s *TaskStore) readLatest(id a2a.TaskID) (*taskRecord, bool, error) {
	return s.readFrom(s.area.ViewLatest, id)
}

func (s *TaskStore) readFrom(view func(func(*store.Tx) error) error, id a2a.TaskID) (*taskRecord, bool, error) {
	var rec *taskRecord
	err := view(func(tx *store.Tx) error {
		v := tx.Bucket([]byte(bucketTasks)).Get([]byte(id))
		if v == nil {
			return nil
		}
		rec = &taskRecord{}
		return store.Decode(v, rec)
	})
	if err != nil {
		return nil, false, storeErr("read the task", err)
	}
	return rec, rec != nil, nil
}

// write puts rec on disk with its index entry and its context, and drops
// the in-memory copy it supersedes.
func (s *TaskStore) write(rec *taskRecord) error {
	err := s.area.Update(func(tx *store.Tx) error { return putTask(tx, rec, rec.Updated) })
	if err != nil {
		return storeErr("store the task", err)
	}
	s.mu.Lock()
	delete(s.hot, rec.ID)
	delete(s.contexts, rec.Context)
	s.mu.Unlock()
	return nil
}

// putTask writes rec, moves its index entry and records its context as
// used at now. It is idempotent (the group commit may run it twice).
func putTask(tx *store.Tx, rec *taskRecord, now time.Time) error {
	tb, ib, cb := tx.Bucket([]byte(bucketTasks)), tx.Bucket([]byte(bucketIndex)), tx.Bucket([]byte(bucketContexts))
	if old := tb.Get([]byte(rec.ID)); old != nil {
		var prev taskRecord
		if err := store.Decode(old, &prev); err != nil {
			return err
		}
		if err := ib.Delete(indexKey(prev.Owner, prev.Agent, prev.Updated, prev.ID)); err != nil {
			return err
		}
	}
	v, err := store.Encode(rec)
	if err != nil {
		return err
	}
	if err := tb.Put([]byte(rec.ID), v); err != nil {
		return err
	}
	iv, err := store.Encode(indexEntry{State: rec.State, Context: rec.Context, StatusAt: rec.StatusAt})
	if err != nil {
		return err
	}
	if err := ib.Put(indexKey(rec.Owner, rec.Agent, rec.Updated, rec.ID), iv); err != nil {
		return err
	}
	if rec.Context == "" {
		return nil
	}
	cr := contextRecord{Owner: rec.Owner, Agent: rec.Agent, User: rec.User, Used: now}
	if old := cb.Get([]byte(rec.Context)); old != nil {
		if err := store.Decode(old, &cr); err != nil {
			return err
		}
		cr.Used = now
	}
	cv, err := store.Encode(cr)
	if err != nil {
		return err
	}
	return cb.Put([]byte(rec.Context), cv)
}

// contextOf returns whose context id is, and the session user its tasks
// run as.
func (s *TaskStore) contextOf(id string) (contextRecord, bool, error) {
	s.mu.Lock()
	cr, ok := s.contexts[id]
	s.mu.Unlock()
	if ok {
		return cr, true, nil
	}
	err := s.area.View(func(tx *store.Tx) error {
		v := tx.Bucket([]byte(bucketContexts)).Get([]byte(id))
		if v == nil {
			return nil
		}
		ok = true
		return store.Decode(v, &cr)
	})
	if err != nil {
		return contextRecord{}, false, storeErr("read the context", err)
	}
	return cr, ok, nil
}

// storeErr is a store failure as the edge reports it: unavailable, with
// no internal detail for the peer.
func storeErr(what string, err error) error {
	return beamclaw.E("a2a.store", beamclaw.KindUnavailable, "could not "+what+"; please retry", err)
}
