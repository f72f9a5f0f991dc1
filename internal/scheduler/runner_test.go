package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestOneShotRunsAtItsInstantAndIsDone(t *testing.T) {
	e := newEnv(t, nil)
	e.start()
	j := e.add(AddRequest{Schedule: "in 20m", Prompt: "call Ana"})
	e.advanceTo(t0.Add(time.Hour))
	e.waitRuns(1)

	turns := e.turns.all()
	if len(turns) != 1 {
		t.Fatalf("%d turns, want 1", len(turns))
	}
	got := turns[0]
	want := Turn{JobID: j.ID, Agent: "ana", UserID: "local:u1", Prompt: "call Ana",
		Autonomy: beamclaw.Supervised, Due: t0.Add(20 * time.Minute)}
	if diff := cmp.Diff(want, got, cmp.Comparer(time.Time.Equal)); diff != "" {
		t.Errorf("turn (-want +got):\n%s", diff)
	}
	msg := <-e.out.got
	if msg.Text != "done: call Ana" || msg.JobID != j.ID || msg.SessionID != "session-local:u1-ana" {
		t.Errorf("delivered %+v", msg)
	}
	j = e.job(j.ID)
	if j.State != StateDone || j.FireCount != 1 || j.Running() || !j.LastRunAt.Equal(t0.Add(20*time.Minute)) {
		t.Errorf("job after its run: state %s, fires %d, running %v, last %s", j.State, j.FireCount, j.Running(), j.LastRunAt)
	}
	runs := e.runs(j.ID)
	if len(runs) != 1 || runs[0].Outcome != OutcomeOK || runs[0].Excerpt != "done: call Ana" ||
		!runs[0].Started.Equal(t0.Add(20*time.Minute)) {
		t.Errorf("runs = %+v", runs)
	}
	for _, name := range []beamclaw.EventName{beamclaw.EventSchedJobCreated, beamclaw.EventSchedJobFired, beamclaw.EventSchedJobCompleted} {
		if n := len(e.events.named(name, j.ID)); n != 1 {
			t.Errorf("%d %s events, want 1", n, name)
		}
	}
	fired := e.events.named(beamclaw.EventSchedJobFired, j.ID)[0]
	if fired.SessionID != "session-local:u1-ana" || attr(fired, "heartbeat") != "false" {
		t.Errorf("fired event %+v", fired)
	}
}

// TestDaysOfScheduleOnTheFakeClock runs three days of an interval job,
// a week of a cron job across the spring DST change and five days of
// random slots, each run at its own instant.
func TestDaysOfScheduleOnTheFakeClock(t *testing.T) {
	mustZone(t, "Europe/Berlin")
	start := time.Date(2026, 3, 26, 12, 0, 0, 0, time.UTC)
	e := newEnvAt(t, start, func(o *Options) { o.RunHistory = 10 })
	e.start()
	every := e.add(AddRequest{Schedule: "every 2h"})
	cron := e.add(AddRequest{Schedule: "cron 30 2 * * * Europe/Berlin"})
	random := e.add(AddRequest{Schedule: "random 3 per 1d"})
	end := start.Add(5 * 24 * time.Hour)
	e.advanceTo(end)

	var wantEvery []string
	for at := start.Add(2 * time.Hour); !at.After(end); at = at.Add(2 * time.Hour) {
		wantEvery = append(wantEvery, at.Format(time.RFC3339))
	}
	wantCron := []string{"2026-03-27T01:30:00Z", "2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z",
		"2026-03-30T00:30:00Z", "2026-03-31T00:30:00Z"}
	e.waitRuns(len(wantEvery) + len(wantCron) + 15)
	if diff := cmp.Diff(wantEvery, e.turns.dues(every.ID)); diff != "" {
		t.Errorf("every 2h (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantCron, e.turns.dues(cron.ID)); diff != "" {
		t.Errorf("cron across spring-forward (-want +got):\n%s", diff)
	}
	if got := len(e.turns.dues(random.ID)); got != 15 {
		t.Errorf("random 3 per 1d ran %d times in 5 days, want 15", got)
	}
	for _, r := range e.runs(every.ID) {
		if !r.Started.Equal(r.Due) || r.Outcome != OutcomeOK {
			t.Errorf("run %d due %s started %s (%s), want on time and ok", r.Seq, r.Due, r.Started, r.Outcome)
		}
	}
	if n := len(e.runs(every.ID)); n != 10 {
		t.Errorf("%d runs kept, want RunHistory 10", n)
	}
	if j := e.job(every.ID); j.FireCount != int64(len(wantEvery)) {
		t.Errorf("fire_count %d, want %d", j.FireCount, len(wantEvery))
	}
}

func TestPauseResumeCancel(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.start()
	j := e.add(AddRequest{Schedule: "every 1h"})
	if _, err := e.s.Pause(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	e.advanceTo(t0.Add(5*time.Hour + 30*time.Minute))
	if n := len(e.turns.all()); n != 0 {
		t.Fatalf("a paused job ran %d times", n)
	}
	if ev := e.events.named(beamclaw.EventSchedJobPaused, j.ID); len(ev) != 1 || attr(ev[0], "reason") != "manual" {
		t.Errorf("paused events %+v", ev)
	}
	r, err := e.s.Resume(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(6 * time.Hour); !r.NextRunAt.Equal(want) {
		t.Errorf("after resume next run %s, want %s (the schedule's, not now+1h)", r.NextRunAt, want)
	}
	e.advanceTo(t0.Add(7 * time.Hour))
	e.waitRuns(2)
	if _, err := e.s.Cancel(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	e.advanceTo(t0.Add(10 * time.Hour))
	if n := len(e.turns.all()); n != 2 {
		t.Errorf("%d runs, want 2 (none after cancel)", n)
	}
	if got := e.job(j.ID); got.State != StateDone || got.Reason != "canceled" {
		t.Errorf("canceled job: %s (%s)", got.State, got.Reason)
	}
	if _, err := e.s.Pause(ctx, j.ID); beamclaw.KindOf(err) != beamclaw.KindConflict {
		t.Errorf("pausing a done job: %v, want a conflict", err)
	}
	if _, err := e.s.Resume(ctx, "job-nope"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("resuming a missing job: %v, want not found", err)
	}
}

func TestRunnerWakesWhenJobsChange(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxSleep = 24 * time.Hour })
	e.start()
	e.parkAt(t0.Add(24 * time.Hour)) // idle: MaxSleep
	e.add(AddRequest{Schedule: "in 90s"})
	e.parkAt(t0.Add(90 * time.Second))
}

func TestMaxJobsPerAgent(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxJobsPerAgent = 2 })
	ctx := context.Background()
	a := e.add(AddRequest{Schedule: "every 1h"})
	e.add(AddRequest{Schedule: "every 2h"})
	_, err := e.s.Add(ctx, AddRequest{Agent: "ana", UserID: "local:u1", Schedule: "every 3h", Prompt: "p", Delivery: "tui"})
	if beamclaw.KindOf(err) != beamclaw.KindForbidden {
		t.Fatalf("third job: %v, want forbidden", err)
	}
	want := "agent ana already has 2 scheduled jobs, the limit (scheduler.max_jobs_per_agent); cancel one first"
	if got := beamclaw.UserMessage(err); got != want {
		t.Errorf("message %q", got)
	}
	e.add(AddRequest{Agent: "bo", Schedule: "every 3h"}) // another agent has its own limit
	if _, err := e.s.Cancel(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	e.add(AddRequest{Schedule: "every 3h"}) // a canceled job no longer counts
}

func TestAddErrors(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name string
		req  AddRequest
		want string
	}{
		{"no agent", AddRequest{UserID: "u", Schedule: "in 1m", Prompt: "p", Delivery: "tui"}, "agent is required"},
		{"no prompt", AddRequest{Agent: "a", UserID: "u", Schedule: "in 1m", Delivery: "tui"}, "prompt is required"},
		{"bad schedule", AddRequest{Agent: "a", UserID: "u", Schedule: "every 0h", Prompt: "p", Delivery: "tui"},
			`schedule "every 0h": interval must be positive`},
		{"bad delivery", AddRequest{Agent: "a", UserID: "u", Schedule: "in 1m", Prompt: "p", Delivery: "pager"},
			`delivery "pager": want ` + deliveryForms},
		{"no delivery", AddRequest{Agent: "a", UserID: "u", Schedule: "in 1m", Prompt: "p"},
			"delivery is required: " + deliveryForms},
		{"bad session", AddRequest{Agent: "a", UserID: "u", Schedule: "in 1m", Prompt: "p", Delivery: "tui", Session: "private"},
			`session "private": want shared or isolated`},
		{"bad misfire", AddRequest{Agent: "a", UserID: "u", Schedule: "in 1m", Prompt: "p", Delivery: "tui", Misfire: "later"},
			`misfire "later": want run_once or skip`},
		{"bad zone", AddRequest{Agent: "a", UserID: "u", Schedule: "cron 0 9 * * *", TimeZone: "Moon/Base", Prompt: "p", Delivery: "tui"},
			`schedule "cron 0 9 * * *": unknown time zone "Moon/Base"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.s.Add(context.Background(), tc.req)
			if beamclaw.KindOf(err) != beamclaw.KindInvalid || beamclaw.UserMessage(err) != tc.want {
				t.Errorf("err = %v (%s), want invalid: %s", err, beamclaw.KindOf(err), tc.want)
			}
		})
	}
}

func TestListFilters(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	a := e.add(AddRequest{Schedule: "every 1h"})
	e.clk.Advance(time.Second)
	b := e.add(AddRequest{Agent: "bo", Schedule: "every 1h"})
	e.clk.Advance(time.Second)
	c := e.add(AddRequest{UserID: "local:u2", Schedule: "every 1h"})
	if _, err := e.s.Pause(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	ids := func(f Filter) string {
		js, err := e.s.List(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range js {
			out = append(out, j.ID)
		}
		return fmt.Sprint(out)
	}
	cases := []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{a.ID, b.ID, c.ID}},
		{Filter{Agent: "ana"}, []string{a.ID, c.ID}},
		{Filter{Agent: "ana", UserID: "local:u2"}, []string{c.ID}},
		{Filter{States: []State{StateActive}}, []string{a.ID, b.ID}},
		{Filter{States: []State{StateDone}}, nil},
	}
	for _, tc := range cases {
		if got := ids(tc.f); got != fmt.Sprint(tc.want) {
			t.Errorf("List(%+v) = %s, want %v", tc.f, got, tc.want)
		}
	}
}

// TestRunnerRereadsTheWallClock: the runner never sleeps longer than
// MaxSleep, so a machine that slept through a due time is noticed.
func TestRunnerRereadsTheWallClock(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxSleep = time.Minute })
	e.start()
	e.add(AddRequest{Schedule: "in 1h"})
	e.parkAt(t0.Add(time.Minute))
	e.clk.Set(t0.Add(time.Minute))
	e.parkAt(t0.Add(2 * time.Minute))
}
