package openai

import (
	"hash/maphash"
	"sync"
)

// encCache keeps JSON encodings of request parts that repeat from call to
// call, keyed by a hash of their content. Each entry keeps the source it
// was made from, and a hit is used only when the caller's source is the
// same: a hash collision never sends another part in its place. Entries
// cost their encoding plus what their source holds alive; past the limit
// given to put the cache starts over. The zero value is ready.
type encCache[S any] struct {
	mu   sync.Mutex
	seed maphash.Seed
	m    map[uint64]encoded[S]
	size int
}

type encoded[S any] struct {
	src  S
	enc  []byte
	cost int
}

// hasher returns a hash seeded for this cache.
func (c *encCache[S]) hasher() maphash.Hash {
	c.mu.Lock()
	if c.m == nil {
		c.seed, c.m = maphash.MakeSeed(), make(map[uint64]encoded[S])
	}
	seed := c.seed
	c.mu.Unlock()
	var h maphash.Hash
	h.SetSeed(seed)
	return h
}

// get returns the encoding stored under key when its source is same.
func (c *encCache[S]) get(key uint64, same func(S) bool) ([]byte, bool) {
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if !ok || !same(e.src) {
		return nil, false
	}
	return e.enc, true
}

// put stores enc, made from src, under key; cost is what it holds, and
// the cache holds at most limit.
func (c *encCache[S]) put(key uint64, src S, enc []byte, cost, limit int) {
	if cost > limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, had := c.m[key]; had {
		c.size -= old.cost
	}
	if c.size+cost > limit {
		clear(c.m)
		c.size = 0
	}
	c.m[key] = encoded[S]{src: src, enc: enc, cost: cost}
	c.size += cost
}
