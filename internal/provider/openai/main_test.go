package openai

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/provider/providertest"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newTestClient returns a Client against srv with instant backoff; opts
// may adjust the Options first.
func newTestClient(t testing.TB, srv *fakellm.Server, opts ...func(*Options)) (*Client, *providertest.Sleeps) {
	t.Helper()
	sl := &providertest.Sleeps{}
	o := Options{Name: "fake", BaseURL: srv.URL(), APIKey: "sk-test-key-0123456789", Model: "fake-model", Sleep: sl.Sleep}
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
