package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// TestMisfireWhileStopped: a one-shot due while beamclaw was stopped runs
// exactly once after start (run_once) or is recorded as skipped (skip),
// and a further restart never runs it again.
func TestMisfireWhileStopped(t *testing.T) {
	for _, policy := range []Misfire{MisfireRunOnce, MisfireSkip} {
		t.Run(string(policy), func(t *testing.T) {
			e := newEnv(t, nil)
			e.start()
			j := e.add(AddRequest{Schedule: "in 1h", Misfire: policy})
			e.advanceTo(t0.Add(10 * time.Minute))
			e.restart(t0.Add(3 * time.Hour))
			e.advanceTo(t0.Add(4 * time.Hour))
			if policy == MisfireRunOnce {
				e.waitRuns(1)
			}
			e.restart(t0.Add(5 * time.Hour))
			e.advanceTo(t0.Add(6 * time.Hour))

			runs := e.runs(j.ID)
			if len(runs) != 1 {
				t.Fatalf("%d run records, want 1: %+v", len(runs), runs)
			}
			r := runs[0]
			if !r.Due.Equal(t0.Add(time.Hour)) {
				t.Errorf("run due %s, want %s", r.Due, t0.Add(time.Hour))
			}
			got := e.job(j.ID)
			if got.State != StateDone {
				t.Errorf("job state %s (%s), want done", got.State, got.Reason)
			}
			switch policy {
			case MisfireRunOnce:
				if n := len(e.turns.dues(j.ID)); n != 1 {
					t.Errorf("%d turns, want exactly 1", n)
				}
				if r.Outcome != OutcomeOK || !r.Started.Equal(t0.Add(3*time.Hour)) ||
					r.Reason != "due while beamclaw was not running; misfire policy run_once" {
					t.Errorf("run %+v", r)
				}
			case MisfireSkip:
				if n := len(e.turns.all()); n != 0 {
					t.Errorf("%d turns, want none", n)
				}
				if r.Outcome != OutcomeSkipped || r.Reason != "due while beamclaw was not running; misfire policy skip" {
					t.Errorf("run %+v", r)
				}
				if ev := e.events.named(beamclaw.EventSchedJobSkipped, j.ID); len(ev) != 1 || attr(ev[0], "reason") != "misfire" {
					t.Errorf("skipped events %+v", ev)
				}
			}
		})
	}
}

// TestMisfireRecurring: instants missed while stopped collapse into one
// run (run_once) or one skipped record (skip); the next run is on the
// schedule's grid, not "now" plus the interval.
func TestMisfireRecurring(t *testing.T) {
	for _, policy := range []Misfire{MisfireRunOnce, MisfireSkip} {
		t.Run(string(policy), func(t *testing.T) {
			e := newEnv(t, nil)
			e.start()
			j := e.add(AddRequest{Schedule: "every 1h", Misfire: policy})
			e.advanceTo(t0.Add(90 * time.Minute))
			e.waitRuns(1)
			e.restart(t0.Add(6*time.Hour + 20*time.Minute)) // 2h..6h missed: 5 instants
			e.parkAt(t0.Add(7 * time.Hour))
			if policy == MisfireRunOnce {
				e.waitRuns(1)
			}
			runs := e.runs(j.ID)
			if len(runs) != 2 {
				t.Fatalf("%d run records, want 2: %+v", len(runs), runs)
			}
			r := runs[0]
			if r.Missed != 4 || !r.Due.Equal(t0.Add(2*time.Hour)) {
				t.Errorf("record of the missed instants: %+v, want due 2h standing for 4 more", r)
			}
			want := map[Misfire]Outcome{MisfireRunOnce: OutcomeOK, MisfireSkip: OutcomeSkipped}[policy]
			if r.Outcome != want {
				t.Errorf("outcome %s, want %s", r.Outcome, want)
			}
			wantTurns := map[Misfire]int{MisfireRunOnce: 2, MisfireSkip: 1}[policy]
			if n := len(e.turns.all()); n != wantTurns {
				t.Errorf("%d turns, want %d", n, wantTurns)
			}
			if next := e.job(j.ID).NextRunAt; !next.Equal(t0.Add(7 * time.Hour)) {
				t.Errorf("next run %s, want 7h on the grid", next)
			}
		})
	}
}

func TestGraceWindow(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Grace = 30 * time.Minute })
	e.start()
	late := e.add(AddRequest{Schedule: "in 1h"})
	e.advanceTo(t0.Add(10 * time.Minute))
	e.restart(t0.Add(2 * time.Hour)) // an hour late: past the grace window
	e.park()
	if n := len(e.turns.all()); n != 0 {
		t.Fatalf("%d turns, want none past the grace window", n)
	}
	r := e.runs(late.ID)
	if len(r) != 1 || r[0].Outcome != OutcomeMissed {
		t.Fatalf("runs %+v, want one missed", r)
	}
	if ev := e.events.named(beamclaw.EventSchedJobSkipped, late.ID); len(ev) != 1 || attr(ev[0], "reason") != "missed" {
		t.Errorf("skipped events %+v", ev)
	}

	within := e.add(AddRequest{Schedule: "in 1h"})
	e.restart(t0.Add(3*time.Hour + 20*time.Minute)) // 20 min late: within it
	e.waitRuns(1)
	if n := len(e.turns.dues(within.ID)); n != 1 {
		t.Errorf("%d turns within the grace window, want 1", n)
	}
}

// TestLateWhileRunning: a run found due long after its instant while
// beamclaw ran (a suspended machine) follows the misfire policy too.
func TestLateWhileRunning(t *testing.T) {
	e := newEnv(t, nil)
	e.start()
	j := e.add(AddRequest{Schedule: "every 1h", Misfire: MisfireSkip})
	e.parkAt(t0.Add(time.Hour))
	e.clk.Set(t0.Add(3*time.Hour + 30*time.Minute)) // the timer fires 2.5h late
	e.parkAt(t0.Add(4 * time.Hour))
	r := e.runs(j.ID)
	if len(r) != 1 || r[0].Outcome != OutcomeSkipped || r[0].Missed != 2 ||
		r[0].Reason != "due 2h30m0s ago, past the misfire threshold; misfire policy skip" {
		t.Errorf("runs %+v", r)
	}
	if n := len(e.turns.all()); n != 0 {
		t.Errorf("%d turns, want none", n)
	}
}

// TestCrashMidRun: a run that was executing when beamclaw stopped is
// recorded as interrupted; run_once runs it again once, skip does not.
func TestCrashMidRun(t *testing.T) {
	for _, policy := range []Misfire{MisfireRunOnce, MisfireSkip} {
		t.Run(string(policy), func(t *testing.T) {
			e := newEnv(t, nil)
			block := make(chan struct{})
			e.turns.setAnswer(func(ctx context.Context, tn Turn) (Result, error) {
				select {
				case <-block:
					return Result{Text: "late"}, nil
				case <-ctx.Done():
					return Result{}, ctx.Err()
				}
			})
			e.start()
			j := e.add(AddRequest{Schedule: "in 1h", Misfire: policy})
			e.fireAt(t0.Add(time.Hour))
			<-e.turns.called
			if got := e.job(j.ID); !got.RunningSince.Equal(t0.Add(time.Hour)) {
				t.Fatalf("running_since %s while the turn runs, want it written before", got.RunningSince)
			}
			e.turns.setAnswer(nil) // the blocked turn keeps its answer: it ends only with the stop
			e.restart(t0.Add(time.Hour + 5*time.Minute))
			if policy == MisfireRunOnce {
				e.waitRuns(1)
			}
			e.restart(t0.Add(2 * time.Hour)) // and no second re-run
			e.park()

			runs := e.runs(j.ID)
			last := runs[len(runs)-1] // the oldest
			if last.Outcome != OutcomeInterrupted || last.Reason != "interrupted: beamclaw stopped during the run" {
				t.Errorf("the interrupted run: %+v", last)
			}
			got := e.job(j.ID)
			if got.Running() || got.State != StateDone {
				t.Errorf("job: running %v, state %s (%s)", got.Running(), got.State, got.Reason)
			}
			wantTurns := map[Misfire]int{MisfireRunOnce: 2, MisfireSkip: 1}[policy]
			if n := len(e.turns.all()); n != wantTurns {
				t.Errorf("%d turns, want %d", n, wantTurns)
			}
			wantRecords := map[Misfire]int{MisfireRunOnce: 2, MisfireSkip: 1}[policy]
			if len(runs) != wantRecords {
				t.Errorf("run records %+v", runs)
			}
			if policy == MisfireRunOnce && (runs[0].Outcome != OutcomeOK || !runs[0].Due.Equal(t0.Add(time.Hour))) {
				t.Errorf("the re-run: %+v", runs[0])
			}
		})
	}
}

// TestExecutorRestartKeepsTimers: the executor stops mid-run and a new one
// starts while the runner keeps going; the interrupted run is settled
// and the timers were never lost.
func TestExecutorRestartKeepsTimers(t *testing.T) {
	e := newEnv(t, nil)
	block := make(chan struct{})
	e.turns.setAnswer(func(ctx context.Context, tn Turn) (Result, error) {
		if tn.JobID == "" {
			return Result{}, nil
		}
		select {
		case <-block:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		return Result{Text: "ok"}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runDone := make(chan error, 1)
	go func() { runDone <- e.s.Runner().Serve(ctx) }()
	execCtx, stopExec := context.WithCancel(ctx)
	execDone := make(chan error, 1)
	go func() { execDone <- e.s.Executor().Serve(execCtx) }()

	j := e.add(AddRequest{Schedule: "every 1h"})
	e.fireAt(t0.Add(time.Hour))
	<-e.turns.called
	stopExec() // the executor dies mid-run
	<-execDone
	close(block)
	go func() { execDone <- e.s.Executor().Serve(ctx) }()
	e.waitRuns(1)
	e.advanceTo(t0.Add(2 * time.Hour))
	e.waitRuns(1)
	runs := e.runs(j.ID)
	outcomes := []Outcome{}
	for _, r := range runs {
		outcomes = append(outcomes, r.Outcome)
	}
	want := []Outcome{OutcomeOK, OutcomeOK, OutcomeInterrupted}
	if len(outcomes) != 3 || outcomes[0] != want[0] || outcomes[1] != want[1] || outcomes[2] != want[2] {
		t.Errorf("outcomes newest first %v, want %v", outcomes, want)
	}
	if !runs[0].Due.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("the next run was due %s, want 2h (the timer survived)", runs[0].Due)
	}
	cancel()
	<-runDone
	<-execDone
}
