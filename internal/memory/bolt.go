package memory

import (
	"context"
	"encoding/json"
	"fmt"

	"go.etcd.io/bbolt"

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
// search. Every write goes through db.Update before it is visible.
type Bolt struct {
	*Memory
	db     *store.DB
	bucket []byte
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
	b := &Bolt{Memory: mem, db: db, bucket: []byte(prefix + "memory")}
	mem.durable = b
	exists := false // a user's notes are opened on their first search: no commit when there is nothing to create
	_ = db.View(func(tx *bbolt.Tx) error {
		top := tx.Bucket(b.bucket)
		exists = top != nil && top.Bucket([]byte(agentID)) != nil
		return nil
	})
	if !exists {
		err = db.Update(func(tx *bbolt.Tx) error {
			top, err := tx.CreateBucketIfNotExists(b.bucket)
			if err != nil {
				return err
			}
			_, err = top.CreateBucketIfNotExists([]byte(agentID))
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("open memory of agent %q: %w", agentID, err)
	}
	err = db.View(func(tx *bbolt.Tx) error {
		agent, err := b.agentBucket(tx)
		if err != nil {
			return err
		}
		return agent.ForEach(func(k, v []byte) error {
			e, err := decodeEntry(v)
			if err != nil {
				return fmt.Errorf("entry %q: %w", k, err)
			}
			mem.put(e)
			return ctx.Err()
		})
	})
	if err != nil {
		return nil, fmt.Errorf("open memory of agent %q: %w", agentID, err)
	}
	return b, nil
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

func (b *Bolt) agentBucket(tx *bbolt.Tx) (*bbolt.Bucket, error) {
	top := tx.Bucket(b.bucket)
	if top == nil {
		return nil, fmt.Errorf("bucket %q missing", b.bucket)
	}
	agent := top.Bucket([]byte(b.agent))
	if agent == nil {
		return nil, fmt.Errorf("bucket %q/%q missing", b.bucket, b.agent)
	}
	return agent, nil
}

func (b *Bolt) put(ctx context.Context, e Entry) error {
	v, err := json.Marshal(storedEntry{V: entryVersion, Entry: e})
	if err != nil {
		return fmt.Errorf("encode memory %q: %w", e.Key, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store memory %q: %w", e.Key, err)
	}
	err = b.db.Update(func(tx *bbolt.Tx) error {
		bk, err := b.agentBucket(tx)
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
	err := b.db.Update(func(tx *bbolt.Tx) error {
		bk, err := b.agentBucket(tx)
		if err != nil {
			return err
		}
		return bk.Delete([]byte(key))
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
	found := false
	err := db.Update(func(tx *bbolt.Tx) error {
		top := tx.Bucket([]byte(prefix + "memory"))
		if top == nil || top.Bucket([]byte(agentID)) == nil {
			return nil
		}
		found = true
		return top.DeleteBucket([]byte(agentID))
	})
	if err != nil {
		return false, fmt.Errorf("drop memory of %q: %w", agentID, err)
	}
	return found, nil
}
