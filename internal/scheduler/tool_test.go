package scheduler

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func invoke(t *testing.T, tl *Tool, user, channel string, args map[string]any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tl.Execute(context.Background(), beamclaw.Invocation{Args: raw, AgentID: "ana", UserID: user, Channel: beamclaw.Channel(channel), SessionID: "s1"})
}

func TestToolSpec(t *testing.T) {
	e := newEnv(t, nil)
	spec := e.s.Tool(ToolOptions{}).Spec()
	var schema map[string]any
	if err := json.Unmarshal(spec.Def.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if spec.Def.Name != "scheduler" || !spec.RequiresApproval || spec.MinAutonomy != beamclaw.Supervised || schema["type"] != "object" {
		t.Errorf("spec %+v", spec)
	}
}

func TestToolActions(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.NewID = sequentialIDs() })
	tl := e.s.Tool(ToolOptions{DefaultDelivery: func(inv beamclaw.Invocation) string {
		if inv.Channel == "telegram" {
			return "telegram:42"
		}
		return ""
	}})
	steps := []struct {
		name    string
		user    string
		channel string
		args    map[string]any
		want    string // the output, or the error when wantErr
		wantErr bool
	}{
		{"create from the tui", "local:u1", "tui", map[string]any{"action": "create", "schedule": "every 2h", "prompt": "stretch"},
			"Scheduled job job-1 (every 2h): next run 2026-06-01 02:00 UTC (in 2h0m0s); answers go to tui; session shared.", false},
		{"create from telegram", "local:u1", "telegram", map[string]any{"action": "create", "schedule": "at 2026-06-02T09:00 Europe/Berlin",
			"prompt": "call Ana", "session": "isolated"},
			"Scheduled job job-2 (at 2026-06-02T09:00 Europe/Berlin): next run 2026-06-02 09:00 CEST (in 31h0m0s); answers go to telegram; session isolated.", false},
		{"list", "local:u1", "tui", map[string]any{"action": "list"},
			"- job-1 [active] every 2h; next 2026-06-01 02:00 UTC (in 2h0m0s); runs 0; to tui; prompt: stretch\n" +
				"- job-2 [active] at 2026-06-02T09:00 Europe/Berlin; next 2026-06-02 09:00 CEST (in 31h0m0s); runs 0; to telegram; prompt: call Ana", false},
		{"pause", "local:u1", "tui", map[string]any{"action": "pause", "job_id": "job-1"}, "Job job-1 paused.", false},
		{"another user cannot see it", "local:u2", "tui", map[string]any{"action": "resume", "job_id": "job-1"},
			"scheduler: no scheduled job job-1", true},
		{"another user lists nothing", "local:u2", "tui", map[string]any{"action": "list"}, "No scheduled jobs.", false},
		{"resume", "local:u1", "tui", map[string]any{"action": "resume", "job_id": "job-1"}, "Job job-1 resumed.", false},
		{"cancel", "local:u1", "tui", map[string]any{"action": "cancel", "job_id": "job-2"}, "Job job-2 canceled.", false},
		{"list after cancel", "local:u1", "tui", map[string]any{"action": "list"},
			"- job-1 [active] every 2h; next 2026-06-01 02:00 UTC (in 2h0m0s); runs 0; to tui; prompt: stretch", false},
		{"no action", "local:u1", "tui", map[string]any{}, "scheduler: action is required: create, list, cancel, pause or resume", true},
		{"unknown action", "local:u1", "tui", map[string]any{"action": "delete"},
			`scheduler: unknown action "delete"; want create, list, cancel, pause or resume`, true},
		{"no job id", "local:u1", "tui", map[string]any{"action": "pause"}, "scheduler: pause needs job_id (see action list)", true},
		{"no schedule", "local:u1", "tui", map[string]any{"action": "create", "prompt": "x"},
			"scheduler: create needs schedule: " + scheduleForms, true},
		{"bad schedule", "local:u1", "tui", map[string]any{"action": "create", "schedule": "every 0h", "prompt": "x"},
			`scheduler: schedule "every 0h": interval must be positive`, true},
		{"no delivery from http", "local:u1", "http", map[string]any{"action": "create", "schedule": "in 1h", "prompt": "x"},
			"scheduler: create needs delivery from this channel: " + deliveryForms, true},
		{"unknown argument", "local:u1", "tui", map[string]any{"action": "list", "when": "now"},
			`scheduler: invalid arguments: json: unknown field "when"`, true},
	}
	for _, st := range steps {
		got, err := invoke(t, tl, st.user, st.channel, st.args)
		if st.wantErr {
			if err == nil || err.Error() != st.want {
				t.Errorf("%s: err = %v\nwant %s", st.name, err, st.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", st.name, err)
			continue
		}
		if got != st.want {
			t.Errorf("%s:\n got %s\nwant %s", st.name, got, st.want)
		}
	}
	j := e.job("job-2")
	if j.Delivery.String() != "telegram:42" || j.Agent != "ana" || j.UserID != "local:u1" {
		t.Errorf("job-2 %+v", j)
	}
}

func sequentialIDs() func() string {
	n := 0
	return func() string {
		n++
		return "job-" + strconv.Itoa(n)
	}
}
