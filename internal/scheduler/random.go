package scheduler

import (
	"hash/fnv"
	"time"
)

// Random slots. Window k is [Anchor + k*Every, Anchor + (k+1)*Every); it
// is cut into Count equal slots and one instant is picked in each slot's
// inner 80% (10% padding on each side, so neighbouring instants never
// cluster at a slot boundary), to the second, by a hash of the seed (the
// job id), k and the slot's index. The instants are a function of those
// alone, so after a restart the runner recomputes exactly the instants
// it would have used. slotHash must therefore never change.

// nextRandom returns the first random instant after after.
func (s Schedule) nextRandom(after time.Time) time.Time {
	if s.Every <= 0 || s.Count <= 0 {
		return time.Time{}
	}
	var w int64
	if after.After(s.Anchor) {
		w = int64(after.Sub(s.Anchor) / s.Every)
	}
	for k := w; k <= w+1; k++ {
		for i := range s.Count {
			if t := s.slot(k, i); t.After(after) {
				return t
			}
		}
	}
	return time.Time{}
}

// slot returns the instant of slot i in window k.
func (s Schedule) slot(k int64, i int) time.Time {
	width := s.Every / time.Duration(s.Count)
	pad := width / 10
	span := int64((width - 2*pad) / time.Second)
	if span < 1 {
		span = 1
	}
	jitter := time.Duration(slotHash(s.Seed, k, i)%uint64(span)) * time.Second
	return s.Anchor.Add(time.Duration(k)*s.Every + time.Duration(i)*width + pad + jitter)
}

// slotHash mixes FNV-1a of seed with k and i through splitmix64's
// finalizer.
func slotHash(seed string, k int64, i int) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed))
	x := h.Sum64() ^ uint64(k)*0x9e3779b97f4a7c15 ^ uint64(i+1)*0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
