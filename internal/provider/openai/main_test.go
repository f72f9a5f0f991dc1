package openai

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sleeps records backoff waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newTestClient returns a Client against srv with instant backoff; opts
// may adjust the Options first.
func newTestClient(t testing.TB, srv *fakellm.Server, opts ...func(*Options)) (*Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	o := Options{Name: "fake", BaseURL: srv.URL(), APIKey: "sk-test-key-0123456789", Model: "fake-model", Sleep: sl.sleep}
	for _, f := range opts {
		f(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c, sl
}

// collect is an onText that records every piece.
type collect struct {
	mu     sync.Mutex
	pieces []string
}

func (c *collect) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pieces = append(c.pieces, s)
}

func (c *collect) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out string
	for _, p := range c.pieces {
		out += p
	}
	return out
}
