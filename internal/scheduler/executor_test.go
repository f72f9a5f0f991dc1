package scheduler

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

func failing(context.Context, Turn) (Result, error) { return Result{}, errBoom }

func TestBackoffDurations(t *testing.T) {
	e := newEnv(t, nil)
	var got []time.Duration
	for n := 1; n <= 7; n++ {
		got = append(got, e.s.backoff(n))
	}
	want := []time.Duration{30 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, time.Hour, time.Hour}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
}

// TestFailuresBackOffThenAutoPause: a failing one-shot is retried after
// 30 s, then 1 min, and paused after max_errors failures in a row.
func TestFailuresBackOffThenAutoPause(t *testing.T) {
	e := newEnv(t, nil)
	e.turns.setAnswer(failing)
	e.start()
	j := e.add(AddRequest{Schedule: "in 10m"})
	e.advanceTo(t0.Add(time.Hour))
	e.waitRuns(3)
	want := []string{"2026-06-01T00:10:00Z", "2026-06-01T00:10:30Z", "2026-06-01T00:11:30Z"}
	if diff := cmp.Diff(want, e.turns.dues(j.ID)); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	got := e.job(j.ID)
	if got.State != StatePaused || got.ConsecutiveErrors != 3 || got.LastError != "boom" ||
		got.Reason != "paused after 3 consecutive failures; last: boom" {
		t.Errorf("job %s (%s), errors %d, last %q", got.State, got.Reason, got.ConsecutiveErrors, got.LastError)
	}
	failed := e.events.named(beamclaw.EventSchedJobFailed, j.ID)
	if len(failed) != 3 || attr(failed[2], "error_count") != "3" || attr(failed[2], "error") != "boom" {
		t.Errorf("failed events %+v", failed)
	}
	if p := e.events.named(beamclaw.EventSchedJobPaused, j.ID); len(p) != 1 || attr(p[0], "reason") != "auto" {
		t.Errorf("paused events %+v", p)
	}
	for _, r := range e.runs(j.ID) {
		if r.Outcome != OutcomeFailed || r.Error != "boom" {
			t.Errorf("run %+v", r)
		}
	}

	e.turns.setAnswer(nil)
	r, err := e.s.Resume(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !r.NextRunAt.Equal(t0.Add(time.Hour)) || r.ConsecutiveErrors != 0 {
		t.Errorf("resumed one-shot: next %s, errors %d; want now and 0", r.NextRunAt, r.ConsecutiveErrors)
	}
	e.advanceTo(t0.Add(2 * time.Hour))
	e.waitRuns(1)
	if got := e.job(j.ID); got.State != StateDone || got.ConsecutiveErrors != 0 {
		t.Errorf("after a good run: %s, errors %d", got.State, got.ConsecutiveErrors)
	}
}

// TestRecurringBackoff: a failing recurring job waits the longer of its
// next instant and the backoff, and is back on its grid after a success.
func TestRecurringBackoff(t *testing.T) {
	e := newEnv(t, func(o *Options) {
		o.Backoff = []time.Duration{15 * time.Minute, time.Hour}
		o.MaxErrors = 5
	})
	fails := 2
	e.turns.setAnswer(func(context.Context, Turn) (Result, error) {
		if fails > 0 {
			fails--
			return Result{}, errBoom
		}
		return Result{Text: "fine"}, nil
	})
	e.start()
	j := e.add(AddRequest{Schedule: "every 10m"})
	e.advanceTo(t0.Add(100 * time.Minute))
	e.waitRuns(3)
	want := []string{"2026-06-01T00:10:00Z", "2026-06-01T00:25:00Z", "2026-06-01T01:25:00Z", "2026-06-01T01:30:00Z", "2026-06-01T01:40:00Z"}
	if diff := cmp.Diff(want, e.turns.dues(j.ID)); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
}

func TestPanicInTurnFailsOnlyThatRun(t *testing.T) {
	e := newEnv(t, nil)
	n := 0
	e.turns.setAnswer(func(context.Context, Turn) (Result, error) {
		if n++; n == 1 {
			panic("boom")
		}
		return Result{Text: "fine"}, nil
	})
	e.start()
	j := e.add(AddRequest{Schedule: "every 1h"})
	e.advanceTo(t0.Add(2 * time.Hour))
	e.waitRuns(2)
	runs := e.runs(j.ID)
	if len(runs) != 2 || runs[1].Outcome != OutcomeFailed || runs[1].Error != "turn panicked: boom" ||
		runs[0].Outcome != OutcomeOK || !runs[0].Due.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("runs %+v", runs)
	}
}

func TestOverlappingRunIsSkipped(t *testing.T) {
	e := newEnv(t, nil)
	release := make(chan struct{})
	e.turns.setAnswer(func(ctx context.Context, _ Turn) (Result, error) {
		<-release
		return Result{Text: "slow"}, nil
	})
	e.start()
	j := e.add(AddRequest{Schedule: "every 1m"})
	e.parkAt(t0.Add(time.Minute))
	e.clk.Set(t0.Add(time.Minute))
	<-e.turns.called
	e.parkAt(t0.Add(2 * time.Minute))
	e.clk.Set(t0.Add(2 * time.Minute)) // due while the first run still runs
	e.parkAt(t0.Add(3 * time.Minute))
	close(release)
	e.waitRuns(1)
	runs := e.runs(j.ID)
	if len(runs) != 2 || runs[0].Outcome != OutcomeSkipped || runs[0].Reason != "the previous run was still running" ||
		runs[1].Outcome != OutcomeOK {
		t.Errorf("runs %+v", runs)
	}
	if ev := e.events.named(beamclaw.EventSchedJobSkipped, j.ID); len(ev) != 1 || attr(ev[0], "reason") != "overlap" {
		t.Errorf("skipped events %+v", ev)
	}
}

func TestDeliveryFailureFailsTheRun(t *testing.T) {
	e := newEnv(t, nil)
	e.out.fail = errors.New("no terminal is open")
	e.start()
	j := e.add(AddRequest{Schedule: "in 1m"})
	e.advanceTo(t0.Add(time.Minute))
	e.waitRuns(1)
	got := e.job(j.ID)
	if got.ConsecutiveErrors != 1 || got.LastError != "deliver to tui: no terminal is open" {
		t.Errorf("job errors %d, last %q", got.ConsecutiveErrors, got.LastError)
	}
}

func TestTurnFields(t *testing.T) {
	cases := []struct {
		name string
		opts func(*Options)
		req  AddRequest
		want func(id string) Turn
	}{
		{"shared with the default autonomy", nil, AddRequest{Schedule: "in 1m"},
			func(id string) Turn { return Turn{SessionKey: "", Autonomy: beamclaw.Supervised} }},
		{"isolated", nil, AddRequest{Schedule: "in 1m", Session: SessionIsolated},
			func(id string) Turn { return Turn{SessionKey: "sched:" + id, Autonomy: beamclaw.Supervised} }},
		{"configured autonomy", func(o *Options) { o.DefaultAutonomy = beamclaw.Full }, AddRequest{Schedule: "in 1m"},
			func(id string) Turn { return Turn{Autonomy: beamclaw.Full} }},
		{"the job's autonomy", func(o *Options) { o.DefaultAutonomy = beamclaw.Full },
			AddRequest{Schedule: "in 1m", Autonomy: beamclaw.ReadOnly},
			func(id string) Turn { return Turn{Autonomy: beamclaw.ReadOnly} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.opts)
			e.start()
			j := e.add(tc.req)
			e.advanceTo(t0.Add(time.Minute))
			e.waitRuns(1)
			got := e.turns.all()[0]
			want := tc.want(j.ID)
			if got.SessionKey != want.SessionKey || got.Autonomy != want.Autonomy || got.LightContext || got.MaxTokens != 0 {
				t.Errorf("turn %+v, want session key %q autonomy %s", got, want.SessionKey, want.Autonomy)
			}
		})
	}
}

func TestCancelStopsARunningTurn(t *testing.T) {
	e := newEnv(t, nil)
	e.turns.setAnswer(func(ctx context.Context, _ Turn) (Result, error) {
		<-ctx.Done()
		return Result{}, ctx.Err()
	})
	e.start()
	j := e.add(AddRequest{Schedule: "every 1h"})
	e.fireAt(t0.Add(time.Hour))
	<-e.turns.called
	if _, err := e.s.Cancel(context.Background(), j.ID); err != nil {
		t.Fatal(err)
	}
	e.waitRuns(1)
	runs := e.runs(j.ID)
	if len(runs) != 1 || runs[0].Outcome != OutcomeInterrupted || runs[0].Reason != "the job was canceled" {
		t.Errorf("runs %+v", runs)
	}
	if got := e.job(j.ID); got.State != StateDone || got.Running() || got.ConsecutiveErrors != 0 {
		t.Errorf("job %s running %v errors %d", got.State, got.Running(), got.ConsecutiveErrors)
	}
	if n := len(e.events.named(beamclaw.EventSchedJobFailed, j.ID)); n != 0 {
		t.Errorf("%d failed events for a canceled run", n)
	}
	if ev := e.events.named(beamclaw.EventSchedJobCompleted, j.ID); len(ev) != 1 || attr(ev[0], "reason") != "canceled" {
		t.Errorf("completed events %+v", ev)
	}
}

func TestExecutorNeedsTurns(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Turns = nil })
	err := e.s.Executor().Serve(context.Background())
	if !supervise.IsFatal(err) || fmt.Sprint(err) == "" {
		t.Errorf("Serve without Turns: %v, want a fatal error", err)
	}
}
