// Package providertest holds what the provider adapters' tests share: a
// backoff that records its waits instead of sleeping, and an onText that
// records what streamed.
package providertest

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Sleeps records backoff waits instead of sleeping (an adapter's
// Options.Sleep).
type Sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep records d and returns at once (ctx's error, if it ended).
func (s *Sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

// Got is the waits so far.
func (s *Sleeps) Got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// Collect is an onText that records every piece.
type Collect struct {
	mu     sync.Mutex
	pieces []string
}

// Add records a piece.
func (c *Collect) Add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pieces = append(c.pieces, s)
}

// Text is every piece so far, in order.
func (c *Collect) Text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.pieces, "")
}

// Pieces are the pieces so far, as they came.
func (c *Collect) Pieces() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.pieces...)
}
