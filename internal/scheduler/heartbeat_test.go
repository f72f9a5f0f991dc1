package scheduler

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestHasActiveTask(t *testing.T) {
	cases := []struct {
		name, md string
		want     bool
	}{
		{"empty", "", false},
		{"template", "# HEARTBEAT.md\n\n<!-- Add tasks below; the agent checks them every 30 minutes. -->\n\n## Tasks\n\n- [ ]\n- \n* [ ] \n", false},
		{"multi-line comment", "# Tasks\n<!--\n- check the mail\n-->\n", false},
		{"done items and rules", "# Tasks\n- [x] water the plants\n---\n```\n```\n", false},
		{"open task", "# Tasks\n- [ ] check the CI of beamclaw\n", true},
		{"plain line", "Look at the inbox for anything from Ana.", true},
		{"numbered", "## Daily\n1. summarize the news\n", true},
		{"task after a comment", "<!-- note --> check disk space", true},
		{"unclosed comment", "<!-- draft\n- [ ] not yet", false},
	}
	for _, tc := range cases {
		if got := hasActiveTask(tc.md); got != tc.want {
			t.Errorf("%s: hasActiveTask = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestIsHeartbeatOK(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"HEARTBEAT_OK", true},
		{"  HEARTBEAT_OK.\n", true},
		{"**HEARTBEAT_OK**", true},
		{"`HEARTBEAT_OK`", true},
		{"heartbeat_ok", true},
		{"HEARTBEAT_OK - all quiet today", true},
		{"Nothing new. HEARTBEAT_OK", true},
		{"HEARTBEAT_OK", true},
		{"", false},
		{"All good!", false},
		{"HEARTBEAT_OK but the disk of the build server is 97% full, clean it up", false},
		{"Your flight to Lisbon leaves in 3 hours; check in now. HEARTBEAT_OK", false},
	}
	for _, tc := range cases {
		if got := isHeartbeatOK(tc.text); got != tc.want {
			t.Errorf("isHeartbeatOK(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// workspace is a fake set of HEARTBEAT.md files that counts reads.
type workspace struct {
	mu    sync.Mutex
	files map[string]string
	reads int
}

func (w *workspace) set(agent, md string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files == nil {
		w.files = map[string]string{}
	}
	w.files[agent] = md
}

func (w *workspace) read(_ context.Context, agent string) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads++
	md, ok := w.files[agent]
	if !ok {
		return "", fmt.Errorf("HEARTBEAT.md of %s: %w", agent, fs.ErrNotExist)
	}
	return md, nil
}

func heartbeatEnv(t *testing.T, ws *workspace, hb HeartbeatOptions) *env {
	t.Helper()
	hb.Read = ws.read
	e := newEnv(t, func(o *Options) { o.Heartbeat = hb })
	return e
}

func (e *env) syncHeartbeats(specs ...HeartbeatSpec) {
	e.t.Helper()
	if err := e.s.SyncHeartbeats(context.Background(), specs); err != nil {
		e.t.Fatal(err)
	}
}

// TestIdleHeartbeatMakesNoTurn: a missing HEARTBEAT.md, or one with no
// active task, runs no turn at all over ten intervals.
func TestIdleHeartbeatMakesNoTurn(t *testing.T) {
	for _, md := range []string{"", "# Tasks\n<!-- nothing yet -->\n- [ ]\n"} {
		name := map[bool]string{true: "missing", false: "no active task"}[md == ""]
		t.Run(name, func(t *testing.T) {
			ws := &workspace{}
			if md != "" {
				ws.set("ana", md)
			}
			e := heartbeatEnv(t, ws, HeartbeatOptions{Interval: time.Second, SuppressOK: true})
			e.syncHeartbeats(HeartbeatSpec{Agent: "ana", UserID: "local:u1", Delivery: "tui"})
			e.start()
			e.advanceTo(t0.Add(10 * time.Second))
			e.waitRuns(10)
			if n := len(e.turns.all()); n != 0 {
				t.Fatalf("%d turns (LLM calls), want none", n)
			}
			if ws.reads != 10 {
				t.Errorf("HEARTBEAT.md read %d times, want 10", ws.reads)
			}
			runs := e.runs(heartbeatID("ana"))
			if len(runs) != 1 || runs[0].Outcome != OutcomeSkipped || runs[0].Missed != 9 {
				t.Errorf("runs %+v, want one skipped record standing for 10", runs)
			}
			if n := len(e.events.named(beamclaw.EventSchedJobFired, "")); n != 0 {
				t.Errorf("%d fired events", n)
			}
			if ev := e.events.named(beamclaw.EventSchedJobSkipped, ""); len(ev) != 10 || attr(ev[0], "reason") != "idle" {
				t.Errorf("%d skipped events, want 10 idle", len(ev))
			}
		})
	}
}

func TestHeartbeatTurns(t *testing.T) {
	const md = "# Tasks\n- [ ] tell me if the CI of beamclaw is red\n"
	cases := []struct {
		name       string
		answer     string
		suppressOK bool
		delivered  bool
		outcome    Outcome
	}{
		{"ok is suppressed", "**HEARTBEAT_OK**", true, false, OutcomeSuppressed},
		{"ok with a short remark is suppressed", "HEARTBEAT_OK, all quiet.", true, false, OutcomeSuppressed},
		{"news is delivered", "The CI of beamclaw is red since 09:12.", true, true, OutcomeOK},
		{"ok is delivered without suppress_ok", "HEARTBEAT_OK", false, true, OutcomeOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := &workspace{}
			ws.set("ana", md)
			e := heartbeatEnv(t, ws, HeartbeatOptions{Interval: time.Minute, SuppressOK: tc.suppressOK, MaxTokens: 500})
			e.turns.setAnswer(func(context.Context, Turn) (Result, error) { return Result{Text: tc.answer}, nil })
			e.syncHeartbeats(HeartbeatSpec{Agent: "ana", UserID: "local:u1", Delivery: "tui"})
			e.start()
			e.advanceTo(t0.Add(time.Minute))
			e.waitRuns(1)
			turn := e.turns.all()[0]
			if !turn.Heartbeat || !turn.LightContext || turn.MaxTokens != 500 || turn.SessionKey != "heartbeat:ana" ||
				!strings.HasPrefix(turn.Prompt, heartbeatInstruction) || !strings.Contains(turn.Prompt, "CI of beamclaw") {
				t.Errorf("turn %+v", turn)
			}
			if r := e.runs(heartbeatID("ana")); r[0].Outcome != tc.outcome {
				t.Errorf("outcome %s, want %s", r[0].Outcome, tc.outcome)
			}
			select {
			case msg := <-e.out.got:
				if !tc.delivered {
					t.Errorf("delivered %q", msg.Text)
				} else if !msg.Heartbeat || msg.Text != tc.answer {
					t.Errorf("delivered %+v", msg)
				}
			default:
				if tc.delivered {
					t.Error("nothing delivered")
				}
			}
			sup := e.events.named(beamclaw.EventSchedSuppressed, heartbeatID("ana"))
			if want := tc.outcome == OutcomeSuppressed; (len(sup) == 1) != want {
				t.Errorf("%d suppressed events", len(sup))
			} else if want && sup[0].SessionID != "session-heartbeat:ana" {
				t.Errorf("suppressed event %+v", sup[0])
			}
		})
	}
}

// TestHeartbeatActiveHours: heartbeats fire only inside the active
// hours of the user's zone.
func TestHeartbeatActiveHours(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	ws := &workspace{}
	ws.set("ana", "- [ ] check the mail")
	e := heartbeatEnv(t, ws, HeartbeatOptions{Interval: time.Hour, ActiveHours: [2]int{8, 22}})
	e.syncHeartbeats(HeartbeatSpec{Agent: "ana", UserID: "local:u1", Delivery: "silent", TimeZone: "America/New_York"})
	e.start()
	e.advanceTo(t0.Add(24 * time.Hour))
	var want []string
	for k := 1; k <= 24; k++ {
		at := t0.Add(time.Duration(k) * time.Hour)
		if h := at.In(ny).Hour(); h >= 8 && h < 22 {
			want = append(want, at.Format(time.RFC3339))
		}
	}
	e.waitRuns(len(want))
	if got := e.turns.dues(heartbeatID("ana")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("heartbeats at %v\nwant %v", got, want)
	}
}

func TestSyncHeartbeats(t *testing.T) {
	e := heartbeatEnv(t, &workspace{}, HeartbeatOptions{Interval: time.Hour})
	ctx := context.Background()
	e.syncHeartbeats(HeartbeatSpec{Agent: "ana", UserID: "local:u1", Delivery: "tui"},
		HeartbeatSpec{Agent: "bo", UserID: "local:u1", Delivery: "silent", Interval: 10 * time.Minute})
	ana, bo := e.job("hb-ana"), e.job("hb-bo")
	if !ana.Heartbeat || ana.Schedule.Every != time.Hour || ana.Misfire != MisfireSkip || ana.Session != SessionIsolated ||
		!ana.NextRunAt.Equal(t0.Add(time.Hour)) || bo.Schedule.Every != 10*time.Minute {
		t.Fatalf("heartbeat jobs %+v %+v", ana, bo)
	}
	if _, err := e.s.Pause(ctx, "hb-ana"); err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(time.Minute)
	e.syncHeartbeats(HeartbeatSpec{Agent: "ana", UserID: "local:u1", Delivery: "ws", Interval: 2 * time.Hour})
	ana, bo = e.job("hb-ana"), e.job("hb-bo")
	if ana.State != StatePaused || ana.Delivery.Kind != DeliverWS || ana.Schedule.Every != 2*time.Hour {
		t.Errorf("updated heartbeat: %s, %s, %s", ana.State, ana.Delivery, ana.Schedule.Every)
	}
	if bo.State != StateDone {
		t.Errorf("the heartbeat of an agent no longer configured is %s", bo.State)
	}
	// Heartbeats do not count toward max_jobs_per_agent.
	e.s.opts.MaxJobsPerAgent = 1
	e.add(AddRequest{Schedule: "every 1h"})

	err := e.s.SyncHeartbeats(ctx, []HeartbeatSpec{{Agent: "ana", UserID: "u", Delivery: "pigeon"}})
	if beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("bad delivery: %v", err)
	}
}
