package embedcache

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// codecVersion tags every persisted value: [version][expires unix ns int64]
// [dim uint32][dim float32], little endian.
const codecVersion = 1

// errCodec reports a persisted value this version cannot read.
var errCodec = errors.New("embedcache: bad stored value")

func encode(vec []float32, expires time.Time) []byte {
	b := make([]byte, 1+8+4+4*len(vec))
	b[0] = codecVersion
	binary.LittleEndian.PutUint64(b[1:], uint64(expires.UnixNano()))
	binary.LittleEndian.PutUint32(b[9:], uint32(len(vec)))
	for i, f := range vec {
		binary.LittleEndian.PutUint32(b[13+4*i:], math.Float32bits(f))
	}
	return b
}

func decodeExpiry(b []byte) (time.Time, error) {
	if len(b) < 13 || b[0] != codecVersion {
		return time.Time{}, errCodec
	}
	return time.Unix(0, int64(binary.LittleEndian.Uint64(b[1:]))), nil
}

func decode(b []byte) ([]float32, time.Time, error) {
	expires, err := decodeExpiry(b)
	if err != nil {
		return nil, time.Time{}, err
	}
	n := int(binary.LittleEndian.Uint32(b[9:]))
	if len(b) != 13+4*n {
		return nil, time.Time{}, errCodec
	}
	vec := make([]float32, n)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[13+4*i:]))
	}
	return vec, expires, nil
}

// load reads k from the bucket; expired, unreadable or absent entries are
// misses (Prune removes them).
func (c *Cache) load(k string, now time.Time) ([]float32, time.Time, bool) {
	if c.opts.DB == nil {
		return nil, time.Time{}, false
	}
	var vec []float32
	var expires time.Time
	err := c.opts.DB.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(c.opts.Bucket))
		if b == nil {
			return errCodec
		}
		raw := b.Get([]byte(k))
		if raw == nil {
			return errCodec
		}
		var err error
		vec, expires, err = decode(raw)
		return err
	})
	if err != nil || !now.Before(expires) {
		return nil, time.Time{}, false
	}
	return vec, expires, true
}

// persist writes new vectors through the store's group commit and prunes when the bucket
// grows past its bound.
func (c *Cache) persist(ctx context.Context, keys []string, vecs [][]float32, expires time.Time) error {
	if c.opts.DB == nil {
		return nil
	}
	added := 0
	err := c.opts.DB.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(c.opts.Bucket))
		added = 0
		for i, k := range keys {
			if b.Get([]byte(k)) == nil {
				added++
			}
			if err := b.Put([]byte(k), encode(vecs[i], expires)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("embedcache: persist %d vectors: %w", len(keys), err)
	}
	c.mu.Lock()
	c.persisted += added
	over := c.persisted > c.opts.MaxEntries
	c.mu.Unlock()
	if over {
		return c.Prune(ctx)
	}
	return nil
}

type stamped struct {
	key     []byte
	expires time.Time
}

// Prune drops expired entries from memory and from the bucket, then the
// soonest-expiring persisted entries while the bucket is over MaxEntries.
func (c *Cache) Prune(ctx context.Context) error {
	now := c.opts.Clock.Now()
	c.mu.Lock()
	for el := c.lru.Back(); el != nil; {
		prev := el.Prev()
		if it := el.Value.(*item); !now.Before(it.expires) {
			c.lru.Remove(el)
			delete(c.byKey, it.k)
		}
		el = prev
	}
	c.mu.Unlock()
	if c.opts.DB == nil {
		return ctx.Err()
	}
	left := 0
	err := c.opts.DB.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(c.opts.Bucket))
		var live []stamped
		var dead [][]byte
		err := b.ForEach(func(k, v []byte) error {
			exp, err := decodeExpiry(v)
			if err != nil || !now.Before(exp) {
				dead = append(dead, append([]byte(nil), k...))
				return nil
			}
			live = append(live, stamped{key: append([]byte(nil), k...), expires: exp})
			return nil
		})
		if err != nil {
			return err
		}
		if over := len(live) - c.opts.MaxEntries; over > 0 {
			sort.Slice(live, func(i, j int) bool { return live[i].expires.Before(live[j].expires) })
			for _, s := range live[:over] {
				dead = append(dead, s.key)
			}
			live = live[over:]
		}
		for _, k := range dead {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		left = len(live)
		return nil
	})
	if err != nil {
		return fmt.Errorf("embedcache: prune: %w", err)
	}
	c.mu.Lock()
	c.persisted = left
	c.mu.Unlock()
	return nil
}

// Serve prunes every PruneInterval of the clock until ctx ends (a suture
// service).
func (c *Cache) Serve(ctx context.Context) error {
	return clock.Every(ctx, c.opts.Clock, c.opts.PruneInterval, c.Prune)
}
