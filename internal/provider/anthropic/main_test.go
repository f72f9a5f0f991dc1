package anthropic

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
	"github.com/beamclaw/beamclaw-go/internal/provider/providertest"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testKey is the API key of the test clients.
const testKey = "sk-ant-test-key-0123456789"

// newTestClient returns a Client against srv (its /v1 URL, as a user
// might configure it) with recorded backoff and no retries; opts may
// adjust the Options first.
func newTestClient(t testing.TB, srv *fakellm.Server, opts ...func(*Options)) (*Client, *providertest.Sleeps) {
	t.Helper()
	sl := &providertest.Sleeps{}
	o := Options{Settings: provider.Settings{Name: "claude", BaseURL: srv.URL(), APIKey: testKey, Model: "claude-test"}, Sleep: sl.Sleep}
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

func userReq(text string) beamclaw.ChatRequest {
	return beamclaw.ChatRequest{Messages: []beamclaw.Message{{Role: beamclaw.RoleUser, Content: text}}}
}
