package obs

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type recorder struct {
	mu  sync.Mutex
	got []beamclaw.Event
	n   chan struct{}
}

func (r *recorder) Handle(ev beamclaw.Event) {
	r.mu.Lock()
	r.got = append(r.got, ev)
	r.mu.Unlock()
	r.n <- struct{}{}
}

func TestBusDeliversToEveryBackend(t *testing.T) {
	bus := NewBus(8)
	a := &recorder{n: make(chan struct{}, 8)}
	b := &recorder{n: make(chan struct{}, 8)}
	bus.Add(a)
	bus.Add(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- bus.Serve(ctx) }()
	bus.Emit(ctx, beamclaw.Event{Name: beamclaw.EventSessionStart, SessionID: "s1"})
	for _, r := range []*recorder{a, b} {
		select {
		case <-r.n:
		case <-time.After(5 * time.Second):
			t.Fatal("event not delivered")
		}
		if r.got[0].Name != "session_start" || r.got[0].Time.IsZero() {
			t.Errorf("got %+v", r.got[0])
		}
	}
	cancel()
	<-done
}

func TestEmitNeverBlocksAndCountsDrops(t *testing.T) {
	bus := NewBus(2) // not served: the queue fills
	for range 5 {
		bus.Emit(context.Background(), beamclaw.Event{Name: "x"})
	}
	if got := bus.Dropped(); got != 3 {
		t.Fatalf("dropped %d, want 3", got)
	}
	m := NewMetrics(bus.Dropped)
	if got := testutil.ToFloat64(collectorNamed(t, m, "beamclaw_obs_dropped_events_total")); got != 3 {
		t.Errorf("dropped metric = %v", got)
	}
}

func TestServeDrainsOnStop(t *testing.T) {
	bus := NewBus(8)
	r := &recorder{n: make(chan struct{}, 8)}
	bus.Add(r)
	bus.Emit(context.Background(), beamclaw.Event{Name: "a"})
	bus.Emit(context.Background(), beamclaw.Event{Name: "b"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = bus.Serve(ctx)
	if len(r.got) != 2 {
		t.Fatalf("delivered %d of 2 queued events on stop", len(r.got))
	}
}

func TestLogBackend(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewLogger(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	b := NewLogBackend(log)
	b.Handle(beamclaw.Event{Name: beamclaw.EventToolCallResult, SessionID: "s9",
		Attrs: []slog.Attr{slog.String("tool_name", "read_file"), slog.Bool("success", false)}})
	out := buf.String()
	for _, want := range []string{`"event":"tool_call_result"`, `"session_id":"s9"`, `"tool_name":"read_file"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log %q lacks %s", out, want)
		}
	}
	// The routine steps of a turn that went well are debug lines: at info,
	// a turn writes only its access line.
	buf.Reset()
	b.Handle(beamclaw.Event{Name: beamclaw.EventToolCallStart, SessionID: "s9"})
	b.Handle(beamclaw.Event{Name: beamclaw.EventTurnComplete, SessionID: "s9", Attrs: []slog.Attr{slog.Bool("success", true)}})
	if buf.Len() != 0 {
		t.Errorf("routine events logged at info: %s", buf.String())
	}
	b.Handle(beamclaw.Event{Name: beamclaw.EventTurnComplete, SessionID: "s9", Attrs: []slog.Attr{slog.Bool("success", false)}})
	if !strings.Contains(buf.String(), `"event":"turn_complete"`) {
		t.Errorf("a failed turn was not logged at info: %q", buf.String())
	}
	if _, err := NewLogger(&buf, "loud", "text"); err == nil {
		t.Error("bad level accepted")
	}
	if _, err := NewLogger(&buf, "info", "xml"); err == nil {
		t.Error("bad format accepted")
	}
}

func TestMetricsFromEvents(t *testing.T) {
	m := NewMetrics(nil)
	m.Handle(beamclaw.Event{Name: beamclaw.EventToolCallResult, Attrs: []slog.Attr{
		slog.String("tool_name", "jq"), slog.Bool("success", true), slog.Int64("duration_ms", 12)}})
	m.LiveSessions(func() int { return 1 })
	m.ObserveHTTP("/health", "GET", 200, time.Millisecond)
	m.Restarted("gateway.http")
	if got := testutil.ToFloat64(m.toolCalls.WithLabelValues("jq", "true")); got != 1 {
		t.Errorf("tool calls = %v", got)
	}
	if n, err := testutil.GatherAndCount(m.Registry(), "beamclaw_sessions_live"); err != nil || n != 1 {
		t.Errorf("beamclaw_sessions_live: %d series, %v", n, err)
	}
	if got := testutil.ToFloat64(m.httpRequests.WithLabelValues("/health", "GET", "200")); got != 1 {
		t.Errorf("http requests = %v", got)
	}
	if got := testutil.ToFloat64(m.restarts.WithLabelValues("gateway.http")); got != 1 {
		t.Errorf("restarts = %v", got)
	}
	m.Handle(beamclaw.Event{Name: beamclaw.EventA2ARequest, Attrs: []slog.Attr{slog.String("rpc_method", "SendMessage")}})
	m.Handle(beamclaw.Event{Name: beamclaw.EventA2ATaskCreated})
	m.Handle(beamclaw.Event{Name: beamclaw.EventA2ATaskUpdated, Attrs: []slog.Attr{slog.String("state", "completed")}})
	if got := testutil.ToFloat64(m.a2aRequests.WithLabelValues("SendMessage")); got != 1 {
		t.Errorf("a2a requests = %v", got)
	}
	if got := testutil.ToFloat64(m.a2aCreated) + testutil.ToFloat64(m.a2aStates.WithLabelValues("completed")); got != 2 {
		t.Errorf("a2a tasks created + completed = %v", got)
	}
	n, err := testutil.GatherAndCount(m.Registry())
	if err != nil || n == 0 {
		t.Fatalf("gather: %d, %v", n, err)
	}
}

func BenchmarkEmit(b *testing.B) {
	bus := NewBus(1024)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- bus.Serve(ctx) }()
	ev := beamclaw.Event{Name: beamclaw.EventToolCallStart, SessionID: "session-1",
		Attrs: []slog.Attr{slog.String("tool_name", "read_file")}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		bus.Emit(ctx, ev)
	}
	b.StopTimer()
	cancel()
	<-done
}
