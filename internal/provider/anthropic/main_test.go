package anthropic

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testKey is the API key of the test clients.
const testKey = "sk-ant-test-key-0123456789"

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

// newTestClient returns a Client against srv (its /v1 URL, as a user
// might configure it) with recorded backoff and no retries; opts may
// adjust the Options first.
func newTestClient(t testing.TB, srv *fakellm.Server, opts ...func(*Options)) (*Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	o := Options{Settings: provider.Settings{Name: "claude", BaseURL: srv.URL(), APIKey: testKey, Model: "claude-test"}, Sleep: sl.sleep}
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
	return strings.Join(c.pieces, "")
}

func userReq(text string) beamclaw.ChatRequest {
	return beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: text}}}
}
