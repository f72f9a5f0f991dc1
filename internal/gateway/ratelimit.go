package gateway

import (
	"math"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// Limiter is a per-client sliding-window rate limiter (spec ADR-007). It
// keeps two fixed windows per client and weighs the previous one by how
// much of it still overlaps the sliding window, which is O(1) in time and
// memory per client and has no boundary bursts. The table of clients is
// bounded by MaxClients and ordered by when each was last seen: a
// newcomer to a full table takes the place of the least recently seen
// client, so a flood of addresses never shuts out a client that has sent
// nothing. A forgotten client starts again with a full budget, but only
// after MaxClients other clients were seen since its last request, which
// costs whoever sent them far more requests than the budget they reset.
type Limiter struct {
	limit      int
	window     time.Duration
	maxClients int
	clock      clock.Clock

	mu      sync.Mutex
	clients map[string]*bucket
	lru     bucket // sentinel of the recency list: lru.newer is the oldest, lru.older the newest
}

type bucket struct {
	key      string
	start    int64 // start of the current window, unix nanos
	cur      int   // requests in the current window
	prev     int   // requests in the previous window
	lastSeen int64

	older, newer *bucket // the recency list
}

// NewLimiter allows limit requests per window per client.
func NewLimiter(limit int, window time.Duration, maxClients int, clk clock.Clock) *Limiter {
	if maxClients <= 0 {
		maxClients = 10000
	}
	l := &Limiter{limit: limit, window: window, maxClients: maxClients, clock: clock.Or(clk),
		clients: make(map[string]*bucket)}
	l.lru.older, l.lru.newer = &l.lru, &l.lru
	return l
}

// Allow records a request from client and reports whether it is within the
// limit; when not, retryAfter says when the next one would be.
func (l *Limiter) Allow(client string) (ok bool, retryAfter time.Duration) {
	now := l.clock.Now().UnixNano()
	w := int64(l.window)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.clients[client]
	if b == nil {
		if len(l.clients) >= l.maxClients {
			l.forget(l.lru.newer) // the least recently seen
		}
		b = &bucket{key: client, start: now - now%w}
		l.clients[client] = b
	} else {
		b.unlink()
	}
	b.lastSeen = now
	l.pushNewest(b)
	start := now - now%w
	switch {
	case start == b.start:
	case start-b.start == w:
		b.prev, b.cur, b.start = b.cur, 0, start
	default:
		b.prev, b.cur, b.start = 0, 0, start
	}
	overlap := 1 - float64(now-start)/float64(w)
	est := float64(b.prev)*overlap + float64(b.cur)
	if est+1 > float64(l.limit) {
		return false, l.retryAfter(b, now, w)
	}
	b.cur++
	return true, 0
}

// retryAfter estimates when the weighted count drops below the limit.
func (l *Limiter) retryAfter(b *bucket, now, w int64) time.Duration {
	elapsed := now - b.start
	if b.prev > 0 && b.cur < l.limit {
		// est(t) = prev*(1-t/w) + cur < limit  =>  t > w*(1-(limit-cur-1)/prev)
		need := float64(w) * (1 - float64(l.limit-b.cur-1)/float64(b.prev))
		if d := time.Duration(math.Ceil(need)) - time.Duration(elapsed); d > 0 {
			return d
		}
		return time.Millisecond
	}
	return time.Duration(w - elapsed)
}

func (l *Limiter) pushNewest(b *bucket) {
	b.older, b.newer = l.lru.older, &l.lru
	l.lru.older.newer = b
	l.lru.older = b
}

func (b *bucket) unlink() {
	b.older.newer, b.newer.older = b.newer, b.older
	b.older, b.newer = nil, nil
}

func (l *Limiter) forget(b *bucket) {
	b.unlink()
	delete(l.clients, b.key)
}

// Prune drops clients idle for two windows; the gateway calls it every
// minute so the table shrinks without traffic.
func (l *Limiter) Prune() {
	cut := l.clock.Now().UnixNano() - 2*int64(l.window)
	l.mu.Lock()
	defer l.mu.Unlock()
	for b := l.lru.newer; b != &l.lru && b.lastSeen < cut; b = l.lru.newer {
		l.forget(b)
	}
}

// Len is the number of tracked clients.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}
