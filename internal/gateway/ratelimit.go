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
// bounded: past MaxClients, only clients whose budget has fully refilled
// are forgotten (forgetting any other would hand it a fresh budget, so
// churning through addresses could reset a limited client); when none
// has, new clients are shed until one does.
type Limiter struct {
	limit      int
	window     time.Duration
	maxClients int
	clock      clock.Clock

	mu      sync.Mutex
	clients map[string]*bucket
}

type bucket struct {
	start    int64 // start of the current window, unix nanos
	cur      int   // requests in the current window
	prev     int   // requests in the previous window
	lastSeen int64
}

// NewLimiter allows limit requests per window per client.
func NewLimiter(limit int, window time.Duration, maxClients int, clk clock.Clock) *Limiter {
	if maxClients <= 0 {
		maxClients = 10000
	}
	return &Limiter{limit: limit, window: window, maxClients: maxClients, clock: clock.Or(clk),
		clients: make(map[string]*bucket)}
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
		if len(l.clients) >= l.maxClients && !l.makeRoom(now) {
			return false, l.window // shed: the table is full of clients still counting
		}
		b = &bucket{start: now - now%w}
		l.clients[client] = b
	}
	b.lastSeen = now
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

// makeRoom forgets the clients whose budget has refilled (no request in
// the sliding window) and reports whether there is room for one more.
func (l *Limiter) makeRoom(now int64) bool {
	w := int64(l.window)
	for k, b := range l.clients {
		if refilled(b, now, w) {
			delete(l.clients, k)
		}
	}
	return len(l.clients) < l.maxClients
}

// refilled reports whether a client's weighted count is zero: forgetting
// it costs nothing, since a new bucket would also be empty.
func refilled(b *bucket, now, w int64) bool {
	start := now - now%w
	switch start - b.start {
	case 0:
		return b.cur == 0 && b.prev == 0
	case w:
		return b.cur == 0
	}
	return true // both of its windows have passed
}

// Prune drops clients idle for two windows; the gateway calls it every
// minute so the table shrinks without traffic.
func (l *Limiter) Prune() {
	cut := l.clock.Now().UnixNano() - 2*int64(l.window)
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, b := range l.clients {
		if b.lastSeen < cut {
			delete(l.clients, k)
		}
	}
}

// Len is the number of tracked clients.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}
