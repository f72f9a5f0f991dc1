package supervise

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/thejerf/suture/v4"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// runs counts Serve calls and lets each call decide how to end.
type runs struct {
	n    atomic.Int32
	next func(n int32, ctx context.Context) error
	seen chan int32
}

func (r *runs) Serve(ctx context.Context) error {
	n := r.n.Add(1)
	select {
	case r.seen <- n:
	default:
	}
	return r.next(n, ctx)
}
func (r *runs) String() string { return "runs" }

func waitFor(t *testing.T, ch <-chan int32, want int32) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case n := <-ch:
			if n >= want {
				return
			}
		case <-deadline:
			t.Fatalf("service did not reach run %d", want)
		}
	}
}

func TestGuardRestarts(t *testing.T) {
	cases := []struct {
		name string
		fail func() error
	}{
		{"panic", func() error { panic("boom") }},
		{"inner deadline exceeded", func() error { return context.DeadlineExceeded }},
		{"inner canceled", func() error { return context.Canceled }},
		{"plain error", func() error { return errors.New("broken") }},
		{"nil while not asked to stop", func() error { return nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			failOnceThenServe(t, "test", Options{}, tc.fail)
		})
	}
}

// failOnceThenServe runs a guarded service under a supervisor called name:
// its first run ends with fail(), the second serves until stopped. It
// returns once the supervisor restarted it and then ended.
func failOnceThenServe(t *testing.T, name string, opts Options, fail func() error) {
	t.Helper()
	r := &runs{seen: make(chan int32, 16)}
	r.next = func(n int32, ctx context.Context) error {
		if n == 1 {
			return fail()
		}
		<-ctx.Done()
		return ctx.Err()
	}
	opts.Backoff = time.Millisecond
	sup := New(name, opts)
	sup.Add(Guard(r, GuardOptions{}))
	ctx, cancel := context.WithCancel(context.Background())
	done := sup.ServeBackground(ctx)
	waitFor(t, r.seen, 2)
	cancel()
	<-done
}

func TestGuardBudgetStopsTree(t *testing.T) {
	r := &runs{seen: make(chan int32, 64), next: func(int32, context.Context) error {
		return errors.New("always broken")
	}}
	var failures atomic.Int32
	sup := New("root", Options{Backoff: time.Millisecond})
	sup.Add(Guard(r, GuardOptions{
		Budget:    Budget{Max: 3, Window: time.Hour},
		OnFailure: func(string, error) { failures.Add(1) },
	}))
	err := sup.Serve(context.Background())
	if !IsFatal(err) {
		t.Fatalf("root ended with %v, want a fatal error", err)
	}
	if got := r.n.Load(); got != 4 {
		t.Errorf("served %d times, want 4 (3 restarts then give up)", got)
	}
	if got := failures.Load(); got != 3 {
		t.Errorf("OnFailure called %d times, want 3", got)
	}
}

func TestContainedSubtreeLeavesParentRunning(t *testing.T) {
	bad := &runs{seen: make(chan int32, 64), next: func(int32, context.Context) error {
		return errors.New("always broken")
	}}
	good := &runs{seen: make(chan int32, 4), next: func(_ int32, ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	sub := New("session", Options{Contain: true, Backoff: time.Millisecond})
	sub.Add(Guard(bad, GuardOptions{Budget: Budget{Max: 2, Window: time.Hour}}))
	root := New("root", Options{Backoff: time.Millisecond})
	subDone := make(chan struct{})
	root.Add(Func("session-wrapper", func(ctx context.Context) error {
		defer close(subDone)
		return sub.Serve(ctx)
	}))
	root.Add(good)
	ctx, cancel := context.WithCancel(context.Background())
	done := root.ServeBackground(ctx)
	select {
	case <-subDone:
	case <-time.After(5 * time.Second):
		t.Fatal("contained subtree did not stop")
	}
	waitFor(t, good.seen, 1)
	if got := good.n.Load(); got != 1 {
		t.Errorf("healthy sibling was restarted: %d runs", got)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("root ended with %v", err)
	}
}

func TestNoRestartRemovesService(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &runs{seen: make(chan int32, 4), next: func(int32, context.Context) error {
			return NoRestart(errors.New("finished"))
		}}
		sup := New("test", Options{})
		sup.Add(Guard(r, GuardOptions{}))
		ctx, cancel := context.WithCancel(context.Background())
		done := sup.ServeBackground(ctx)
		waitFor(t, r.seen, 1)
		synctest.Wait() // the supervisor has handled the service's end
		if n := len(sup.Services()); n != 0 {
			t.Fatalf("%d services left after NoRestart, want 0", n)
		}
		if r.n.Load() != 1 {
			t.Errorf("restarted after NoRestart")
		}
		cancel()
		<-done
	})
}

var _ suture.Service = (*Guarded)(nil)

// A supervisor's events name it (and its service) in the log.
func TestEventsNameTheSupervisor(t *testing.T) {
	var buf bytes.Buffer // written by the supervisor's goroutine, read after it ended
	failOnceThenServe(t, "sess-42", Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))},
		func() error { return errors.New("broken") })
	out := buf.String()
	if !strings.Contains(out, `msg="service failed"`) || !strings.Contains(out, "supervisor=sess-42") || !strings.Contains(out, "service=runs") {
		t.Errorf("log:\n%s", out)
	}
}
