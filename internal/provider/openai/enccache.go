package openai

import (
	"hash/maphash"
	"sync"
)

// bounded is a map whose values are charged a cost (the bytes they hold
// alive); past a limit it starts over. Its owner locks it.
type bounded[K comparable, V any] struct {
	m    map[K]costed[V]
	size int // the sum of the costs of m's values
}

type costed[V any] struct {
	v    V
	cost int
}

func (b *bounded[K, V]) get(k K) (V, bool) {
	e, ok := b.m[k]
	return e.v, ok
}

// put stores v under k, charged cost; a value costing more than limit is
// not stored, and a map that would hold more than limit starts over.
func (b *bounded[K, V]) put(k K, v V, cost, limit int) {
	if cost > limit {
		return
	}
	if b.m == nil {
		b.m = make(map[K]costed[V])
	}
	if old, had := b.m[k]; had {
		b.size -= old.cost
	}
	if b.size+cost > limit {
		clear(b.m)
		b.size = 0
	}
	b.m[k] = costed[V]{v: v, cost: cost}
	b.size += cost
}

// encCache keeps JSON encodings of request parts that repeat from call to
// call, keyed by a hash of their content. Each entry keeps the source it
// was made from, and a hit is used only when the caller's source is the
// same: a hash collision never sends another part in its place. Entries
// cost their encoding plus what their source holds alive; past the limit
// given to put the cache starts over. The zero value is ready.
type encCache[S any] struct {
	mu      sync.Mutex
	seed    maphash.Seed
	seeded  bool
	entries bounded[uint64, encoded[S]]
}

type encoded[S any] struct {
	src S
	enc []byte
}

// hasher returns a hash seeded for this cache.
func (c *encCache[S]) hasher() maphash.Hash {
	c.mu.Lock()
	if !c.seeded {
		c.seed, c.seeded = maphash.MakeSeed(), true
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
	e, ok := c.entries.get(key)
	c.mu.Unlock()
	if !ok || !same(e.src) {
		return nil, false
	}
	return e.enc, true
}

// put stores enc, made from src, under key; cost is what it holds, and
// the cache holds at most limit.
func (c *encCache[S]) put(key uint64, src S, enc []byte, cost, limit int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries.put(key, encoded[S]{src: src, enc: enc}, cost, limit)
}
