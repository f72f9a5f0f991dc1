package scheduler

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// TestJobsRunWithTheirCreatorsTrust: a job the tool makes records the
// trust of the run that made it (its trust channel, whether remote, its
// autonomy), durably, and its turns get no more: a remote creator's
// channel and ceiling, also when the creating run was itself a scheduled
// run acting for a remote channel. The owner's jobs keep local trust.
func TestJobsRunWithTheirCreatorsTrust(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.NewID = sequentialIDs(); o.DefaultAutonomy = beamclaw.Full })
	tl := e.s.Tool(ToolOptions{})
	create := func(inv beamclaw.Invocation) Job {
		t.Helper()
		inv.Args = json.RawMessage(`{"action":"create","schedule":"in 1h","prompt":"p","delivery":"silent"}`)
		inv.AgentID, inv.UserID = "ana", "api:ana"
		if _, err := tl.Execute(context.Background(), inv); err != nil {
			t.Fatal(err)
		}
		jobs, err := e.s.List(context.Background(), Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return e.job(jobs[len(jobs)-1].ID) // read back from the store
	}
	cases := []struct {
		name       string
		job        func() Job
		wantOrigin *Origin
		wantTrust  beamclaw.Channel
		wantAuto   beamclaw.Autonomy
	}{
		{"http at full", func() Job { return create(beamclaw.Invocation{Channel: beamclaw.ChannelHTTP, Autonomy: beamclaw.Full}) },
			&Origin{Channel: beamclaw.ChannelHTTP, Remote: true, Autonomy: beamclaw.Full}, beamclaw.ChannelHTTP, beamclaw.Full},
		{"telegram at supervised", func() Job {
			return create(beamclaw.Invocation{Channel: beamclaw.ChannelTelegram, Trust: beamclaw.ChannelTelegram, Autonomy: beamclaw.Supervised})
		}, &Origin{Channel: beamclaw.ChannelTelegram, Remote: true, Autonomy: beamclaw.Supervised}, beamclaw.ChannelTelegram, beamclaw.Supervised},
		{"a scheduled run acting for http", func() Job {
			return create(beamclaw.Invocation{Channel: beamclaw.ChannelScheduler, Trust: beamclaw.ChannelHTTP, Autonomy: beamclaw.Full})
		}, &Origin{Channel: beamclaw.ChannelHTTP, Remote: true, Autonomy: beamclaw.Full}, beamclaw.ChannelHTTP, beamclaw.Full},
		{"the tui at supervised", func() Job {
			return create(beamclaw.Invocation{Channel: beamclaw.ChannelTUI, Autonomy: beamclaw.Supervised})
		},
			&Origin{Channel: beamclaw.ChannelTUI, Autonomy: beamclaw.Supervised}, "", beamclaw.Supervised},
		{"the owner's scheduler add", func() Job { return e.add(AddRequest{Schedule: "in 1h"}) }, nil, "", beamclaw.Full},
		{"a record that says remote", func() Job {
			return e.add(AddRequest{Schedule: "in 1h", Origin: &Origin{Channel: beamclaw.ChannelScheduler, Remote: true}})
		}, &Origin{Channel: beamclaw.ChannelScheduler, Remote: true}, beamclaw.ChannelHTTP, beamclaw.Full},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := tc.job()
			if diff := cmp.Diff(tc.wantOrigin, j.Origin); diff != "" {
				t.Errorf("origin (-want +got):\n%s", diff)
			}
			turn := e.s.turn(j, t0)
			if turn.Trust != tc.wantTrust || turn.Autonomy != tc.wantAuto {
				t.Errorf("turn trust %q at %s, want %q at %s", turn.Trust, turn.Autonomy, tc.wantTrust, tc.wantAuto)
			}
		})
	}
}

// TestJobStoredWithoutOriginLoads: a job stored before origins were
// recorded (its record has no origin field) loads, and runs as it did:
// local trust, the default autonomy.
func TestJobStoredWithoutOriginLoads(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.DefaultAutonomy = beamclaw.Full })
	j := e.add(AddRequest{Schedule: "every 1h", Origin: &Origin{Channel: beamclaw.ChannelHTTP, Remote: true}})
	err := e.s.area.Update(func(tx *store.Tx) error {
		var rec map[string]json.RawMessage
		if err := store.Decode(tx.Bucket(bucketJobs).Get([]byte(j.ID)), &rec); err != nil {
			return err
		}
		if _, ok := rec["origin"]; !ok {
			t.Fatalf("the origin is not stored: %v", rec)
		}
		delete(rec, "origin")
		v, err := store.Encode(rec)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketJobs).Put([]byte(j.ID), v)
	})
	if err != nil {
		t.Fatal(err)
	}
	old := e.job(j.ID)
	if old.Origin != nil || old.Prompt != j.Prompt {
		t.Fatalf("old job: %+v", old)
	}
	if turn := e.s.turn(old, t0); turn.Trust != "" || turn.Autonomy != beamclaw.Full {
		t.Errorf("old job's turn: trust %q at %s", turn.Trust, turn.Autonomy)
	}
}

// TestJobQuotaPerCreator: jobs made in conversation count per user over
// all agents (MaxJobsPerUser), besides per agent; a user at the limit
// has not filled the agent, and the owner's jobs (no origin) count only
// per agent.
func TestJobQuotaPerCreator(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.MaxJobsPerAgent, o.MaxJobsPerUser = 4, 2 })
	remote := &Origin{Channel: beamclaw.ChannelHTTP, Remote: true, Autonomy: beamclaw.Full}
	add := func(agent, user string, o *Origin) error {
		_, err := e.s.Add(context.Background(), AddRequest{Agent: agent, UserID: user, Schedule: "in 1h",
			Prompt: "p", Delivery: "silent", Origin: o})
		return err
	}
	steps := []struct {
		name, agent, user string
		origin            *Origin
		want              string // "" or a piece of the error
	}{
		{"first", "ana", "api:eve", remote, ""},
		{"second, another agent", "bob", "api:eve", remote, ""},
		{"third", "ana", "api:eve", remote, "scheduler.max_jobs_per_user"},
		{"another user", "ana", "api:joe", remote, ""},
		{"the owner for eve", "ana", "api:eve", nil, ""},
		{"the owner again", "ana", "local:me", nil, ""},
		{"the agent is full", "ana", "local:me", nil, "scheduler.max_jobs_per_agent"},
	}
	for _, st := range steps {
		err := add(st.agent, st.user, st.origin)
		switch {
		case st.want == "" && err != nil:
			t.Errorf("%s: %v", st.name, err)
		case st.want != "" && (err == nil || !strings.Contains(err.Error(), st.want)):
			t.Errorf("%s: err %v, want %q", st.name, err, st.want)
		case st.want != "" && beamclaw.KindOf(err) != beamclaw.KindForbidden:
			t.Errorf("%s: kind %v, want forbidden", st.name, beamclaw.KindOf(err))
		}
	}
}
