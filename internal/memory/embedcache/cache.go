// Package embedcache holds a caching beamclaw.Embedder: vectors are keyed
// by (model, sha256(text)), expire after a TTL (24 h by default), are kept
// in a bounded in-memory LRU and, when a bbolt database is given, persisted
// in a bucket so that a restart does not re-embed unchanged text. Only
// internal/memory and the daemon import it.
package embedcache

import (
	"container/list"
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Defaults for Options.
const (
	DefaultTTL           = 24 * time.Hour
	DefaultMaxEntries    = 20000
	DefaultBucket        = "embedding_cache"
	DefaultPruneInterval = time.Hour
)

// Options configures a Cache. Zero fields take the defaults.
type Options struct {
	Model         string        // part of every key: vectors of two models never mix
	TTL           time.Duration // embedding.cache_ttl_seconds
	MaxEntries    int           // bound of the in-memory LRU and of the bucket
	DB            *store.DB     // optional; an already-open database owned by the caller
	Bucket        string        // bucket name in DB
	PruneInterval time.Duration // how often Serve prunes expired entries
	Clock         clock.Clock   // defaults to clock.System
}

// Stats counts cache lookups since New.
type Stats struct {
	Hits, Misses, Entries int
}

type item struct {
	k       string
	vec     []float32
	expires time.Time
}

// Cache is a beamclaw.Embedder in front of another one. It is safe for
// concurrent use.
type Cache struct {
	inner beamclaw.Embedder
	opts  Options

	mu        sync.Mutex
	lru       *list.List // of *item, most recent first
	byKey     map[string]*list.Element
	persisted int
	stats     Stats
}

var _ beamclaw.Embedder = (*Cache)(nil)

// New returns a cache in front of inner, creating its bucket when a
// database is given.
func New(inner beamclaw.Embedder, opts Options) (*Cache, error) {
	if inner == nil {
		return nil, beamclaw.E("embedcache.New", beamclaw.KindInvalid, "no embedder", nil)
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.Bucket == "" {
		opts.Bucket = DefaultBucket
	}
	if opts.PruneInterval <= 0 {
		opts.PruneInterval = DefaultPruneInterval
	}
	opts.Clock = clock.Or(opts.Clock)
	c := &Cache{inner: inner, opts: opts, lru: list.New(), byKey: make(map[string]*list.Element)}
	if opts.DB != nil {
		err := opts.DB.Buckets(opts.Bucket)
		if err == nil {
			err = opts.DB.View(func(tx *bbolt.Tx) error {
				c.persisted = tx.Bucket([]byte(opts.Bucket)).Stats().KeyN
				return nil
			})
		}
		if err != nil {
			return nil, fmt.Errorf("embedcache: create bucket %q: %w", opts.Bucket, err)
		}
	}
	return c, nil
}

// String names the cache as a supervised service.
func (c *Cache) String() string { return "memory.embedding-cache" }

// Stats returns lookup counters and the in-memory entry count.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries = c.lru.Len()
	return s
}

// cacheKey is the model followed by a NUL and the text's SHA-256.
func (c *Cache) cacheKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return c.opts.Model + "\x00" + string(sum[:])
}

// Embed returns one vector per text, asking the inner embedder once for
// all texts not cached (each distinct text once). Returned vectors are
// copies the caller may keep.
func (c *Cache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([]string, len(texts))
	missIdx := make(map[string][]int)
	var missTexts, missKeys []string
	for i, t := range texts {
		keys[i] = c.cacheKey(t)
		if v, ok := c.lookup(keys[i]); ok {
			out[i] = v
			continue
		}
		if _, seen := missIdx[keys[i]]; !seen {
			missTexts = append(missTexts, t)
			missKeys = append(missKeys, keys[i])
		}
		missIdx[keys[i]] = append(missIdx[keys[i]], i)
	}
	if len(missTexts) == 0 {
		return out, nil
	}
	vecs, err := c.inner.Embed(ctx, missTexts)
	if err != nil {
		return nil, fmt.Errorf("embed %d texts: %w", len(missTexts), err)
	}
	if len(vecs) != len(missTexts) {
		return nil, beamclaw.E("embedcache.Embed", beamclaw.KindUnavailable, "embedding provider returned a wrong number of vectors",
			fmt.Errorf("got %d vectors for %d texts", len(vecs), len(missTexts)))
	}
	expires := c.opts.Clock.Now().Add(c.opts.TTL)
	for j, v := range vecs {
		for _, i := range missIdx[missKeys[j]] {
			out[i] = append([]float32(nil), v...)
		}
		c.remember(missKeys[j], v, expires)
	}
	if err := c.persist(ctx, missKeys, vecs, expires); err != nil {
		return nil, err
	}
	return out, nil
}

// lookup checks memory, then the bucket, counting a hit or a miss.
func (c *Cache) lookup(k string) ([]float32, bool) {
	now := c.opts.Clock.Now()
	c.mu.Lock()
	if el, ok := c.byKey[k]; ok {
		it := el.Value.(*item)
		if now.Before(it.expires) {
			c.lru.MoveToFront(el)
			c.stats.Hits++
			v := append([]float32(nil), it.vec...)
			c.mu.Unlock()
			return v, true
		}
		c.lru.Remove(el)
		delete(c.byKey, k)
	}
	c.mu.Unlock()
	vec, expires, ok := c.load(k, now)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ok {
		c.stats.Misses++
		return nil, false
	}
	c.stats.Hits++
	c.rememberLocked(k, vec, expires)
	return append([]float32(nil), vec...), true
}

func (c *Cache) remember(k string, vec []float32, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rememberLocked(k, append([]float32(nil), vec...), expires)
}

func (c *Cache) rememberLocked(k string, vec []float32, expires time.Time) {
	if el, ok := c.byKey[k]; ok {
		it := el.Value.(*item)
		it.vec, it.expires = vec, expires
		c.lru.MoveToFront(el)
		return
	}
	c.byKey[k] = c.lru.PushFront(&item{k: k, vec: vec, expires: expires})
	for c.lru.Len() > c.opts.MaxEntries {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.byKey, last.Value.(*item).k)
	}
}
