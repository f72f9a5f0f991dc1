package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// noSessions stands for the session manager: the outbox never calls it.
type noSessions struct{}

func (noSessions) Send(context.Context, beamclaw.Inbound) (string, error) { return "", nil }

func outboxRig(t *testing.T, url string) (*Channel, *clock.Fake) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "beamclaw.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	clk := clock.NewFake(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	inst, err := newChannel(channel.Host{Sessions: noSessions{}, DB: db, Clock: clk},
		[]endpoint{{Name: "ci", Secret: "0123456789abcdef", DeliverURL: url, AllowPrivate: true}})
	if err != nil {
		t.Fatal(err)
	}
	c := inst.(*Channel)
	t.Cleanup(c.open.CloseIdleConnections)
	return c, clk
}

// A refused answer is retried 1 s, 2 s, 4 s ... apart, at most 5 minutes,
// 12 attempts in all, then dropped; once dropped (or delivered) its id is
// never queued again. An answer for an endpoint that is not configured
// waits instead of being dropped.
func TestOutboxBackoff(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	c, clk := outboxRig(t, srv.URL)
	ctx := context.Background()
	if err := c.enqueue("run:1", "ci", Outbound{ID: "m1", User: "u", Text: "answer"}); err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	for range 20 {
		next, err := c.deliverDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if next.IsZero() {
			break
		}
		waits = append(waits, next.Sub(clk.Now()))
		clk.Set(next)
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300}
	if len(waits) != len(want) || hits.Load() != maxAttempts {
		t.Fatalf("waits %v after %d attempts, want %v seconds and %d attempts", waits, hits.Load(), want, maxAttempts)
	}
	for i, w := range want {
		if waits[i] != w*time.Second {
			t.Errorf("wait %d = %v, want %v", i+1, waits[i], w*time.Second)
		}
	}
	if err := c.enqueue("run:1", "ci", Outbound{ID: "m1", Text: "again"}); err != nil {
		t.Fatal(err)
	}
	if next, _ := c.deliverDue(ctx); !next.IsZero() || hits.Load() != maxAttempts {
		t.Errorf("a given-up answer was queued again (next %v, %d attempts)", next, hits.Load())
	}

	if err := c.enqueue("run:2", "gone", Outbound{ID: "m2", Text: "for nobody"}); err != nil {
		t.Fatal(err)
	}
	next, _ := c.deliverDue(ctx)
	if next.Sub(clk.Now()) != maxRetryWait {
		t.Errorf("an answer for an endpoint not configured waits %v, want %v", next.Sub(clk.Now()), maxRetryWait)
	}
	clk.Advance(keepDelivered + time.Hour)
	if next, _ := c.deliverDue(ctx); !next.IsZero() {
		t.Errorf("an answer for an endpoint not configured for a week still waits (next %v)", next)
	}
}
