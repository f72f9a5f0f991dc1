package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// entryVersion tags every stored entry ("v":1).
const entryVersion = 1

type storedEntry struct {
	V int `json:"v"`
	Entry
}

// Bolt is the bbolt Backend: entries live in the bucket <prefix>memory /
// <agent id> as versioned JSON and are mirrored in memory for reads and
// search. Every write is committed before it is visible. The bucket is
// the store area <prefix>memory: in cluster mode every node's (ADR-045),
// and a mirror made before another node's write reloads before its next
// use.
type Bolt struct {
	*Memory
	area   *store.Area
	bucket []byte
	seen   atomic.Uint64 // the area's Changes when the mirror was loaded
}

// OpenBolt loads agentID's entries from db (opened and closed by the
// caller) and returns its backend. embedder may be nil.
func OpenBolt(ctx context.Context, db *store.DB, prefix, agentID string, opts Options, embedder beamclaw.Embedder) (*Bolt, error) {
	if db == nil {
		return nil, beamclaw.E("memory.OpenBolt", beamclaw.KindInvalid, "no database", nil)
	}
	mem, err := NewMemory(agentID, opts, embedder)
	if err != nil {
		return nil, err
	}
	area, err := notesArea(db, prefix)
	if err != nil {
		return nil, fmt.Errorf("open memory of agent %q: %w", agentID, err)
	}
	b := &Bolt{Memory: mem, area: area, bucket: []byte(prefix + "memory")}
	mem.durable = b
	exists := false // a user's notes are opened on their first search: no commit when there is nothing to create
	if err := area.View(func(tx *store.Tx) error {
		exists = tx.Bucket(b.bucket).Bucket([]byte(agentID)) != nil
		return nil
	}); err != nil {
		return nil, fmt.Errorf("open memory of agent %q: %w", agentID, err)
	}
	if !exists {
		err = area.Update(func(tx *store.Tx) error {
			_, err := tx.Bucket(b.bucket).CreateBucketIfNotExists([]byte(agentID))
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("open memory of agent %q: %w", agentID, err)
	}
	b.seen.Store(area.Changes())
	entries, err := b.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("open memory of agent %q: %w", agentID, err)
	}
	mem.replace(entries)
	return b, nil
}

// notesArea is the area of every agent's and user's notes in db.
func notesArea(db *store.DB, prefix string) (*store.Area, error) {
	return db.Area(prefix+"memory", prefix+"memory")
}

// load reads the agent's entries (none when another node dropped them).
func (b *Bolt) load(ctx context.Context) (map[string]Entry, error) {
	entries := map[string]Entry{}
	err := b.area.View(func(tx *store.Tx) error {
		agent := tx.Bucket(b.bucket).Bucket([]byte(b.agent))
		if agent == nil {
			return nil
		}
		return agent.ForEach(func(k, v []byte) error {
			e, err := decodeEntry(v)
			if err != nil {
				return fmt.Errorf("entry %q: %w", k, err)
			}
			entries[e.Key] = e
			return ctx.Err()
		})
	})
	return entries, err
}

// refresh reloads the mirror when other nodes changed the notes since it
// was loaded; a failed reload keeps the mirror and is tried again at the
// next use.
func (b *Bolt) refresh(ctx context.Context) {
	if b.seen.Load() == b.area.Changes() {
		return
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	n := b.area.Changes() // read before the load: a change after it reloads again
	if b.seen.Load() == n {
		return
	}
	entries, err := b.load(ctx)
	if err != nil {
		return
	}
	b.seen.Store(n)
	b.replace(entries)
}

func decodeEntry(v []byte) (Entry, error) {
	var s storedEntry
	if err := json.Unmarshal(v, &s); err != nil {
		return Entry{}, err
	}
	if s.V != entryVersion {
		return Entry{}, fmt.Errorf("unsupported memory entry version %d", s.V)
	}
	return s.Entry, nil
}

func (b *Bolt) put(ctx context.Context, e Entry) error {
	v, err := json.Marshal(storedEntry{V: entryVersion, Entry: e})
	if err != nil {
		return fmt.Errorf("encode memory %q: %w", e.Key, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store memory %q: %w", e.Key, err)
	}
	err = b.area.Update(func(tx *store.Tx) error {
		bk, err := tx.Bucket(b.bucket).CreateBucketIfNotExists([]byte(b.agent)) // another node may have dropped it
		if err != nil {
			return err
		}
		return bk.Put([]byte(e.Key), v)
	})
	if err != nil {
		return fmt.Errorf("store memory %q: %w", e.Key, err)
	}
	return nil
}

func (b *Bolt) delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("forget memory %q: %w", key, err)
	}
	err := b.area.Update(func(tx *store.Tx) error {
		if bk := tx.Bucket(b.bucket).Bucket([]byte(b.agent)); bk != nil {
			return bk.Delete([]byte(key))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget memory %q: %w", key, err)
	}
	return nil
}

// DropBolt deletes every entry OpenBolt(ctx, db, prefix, agentID, ...)
// would load; it reports whether there were any. A Bolt still open on
// them must not be used afterwards.
func DropBolt(db *store.DB, prefix, agentID string) (bool, error) {
	area, err := notesArea(db, prefix)
	if err != nil {
		return false, fmt.Errorf("drop memory of %q: %w", agentID, err)
	}
	found := false
	err = area.Update(func(tx *store.Tx) error {
		top := tx.Bucket([]byte(prefix + "memory"))
		found = top.Bucket([]byte(agentID)) != nil
		if !found {
			return nil
		}
		return top.DeleteBucket([]byte(agentID))
	})
	if err != nil {
		return false, fmt.Errorf("drop memory of %q: %w", agentID, err)
	}
	return found, nil
}
