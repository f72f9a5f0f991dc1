package scheduler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// ToolOptions configure the scheduler tool.
type ToolOptions struct {
	// DefaultDelivery is where a job created without a delivery sends its
	// answers, given the invocation (e.g. telegram:<chat> for a Telegram
	// conversation). When nil or "", runs from tui and ws deliver there
	// and other channels must name a delivery.
	DefaultDelivery func(inv beamclaw.Invocation) string
	// TimeZone is the user's IANA zone for at and cron ("" =
	// Options.TimeZone).
	TimeZone func(inv beamclaw.Invocation) string
}

// Tool is the agents' scheduler tool: create, list, cancel, pause and
// resume jobs of the invoking agent and user.
type Tool struct {
	s    *Scheduler
	opts ToolOptions
}

var _ beamclaw.Tool = (*Tool)(nil)

// Tool returns the scheduler tool over s.
func (s *Scheduler) Tool(opts ToolOptions) *Tool { return &Tool{s: s, opts: opts} }

const toolSchema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["create", "list", "cancel", "pause", "resume"], "description": "What to do."},
    "schedule": {"type": "string", "description": "create: when to run. One of: \"in 20m\" (also s, h, d, w), \"at 2026-12-01T09:00\", \"at 09:00\", \"every 2h\", \"cron 0 9 * * 1-5\" (minute hour day month weekday), \"random 3 per 1d\" (3 random times a day). at and cron may end with an IANA zone, e.g. \"cron 0 9 * * * Europe/Berlin\"."},
    "prompt": {"type": "string", "description": "create: the instruction you will be given each time the job runs, written to your future self (e.g. \"Remind the user to call Ana\")."},
    "delivery": {"type": "string", "description": "create: where the answer goes: telegram:<chat id>, tui, ws, webhook:<https URL>, webhook:<endpoint of the webhook channel> or silent. Default: this conversation's channel."},
    "session": {"type": "string", "enum": ["shared", "isolated"], "description": "create: shared (default) runs in this conversation, with its history; isolated runs in a session of the job's own."},
    "time_zone": {"type": "string", "description": "create: IANA zone for at and cron, e.g. Europe/Berlin. Default: the user's."},
    "misfire": {"type": "string", "enum": ["run_once", "skip"], "description": "create: if a run falls due while beamclaw is stopped, run it once at start (run_once, default) or skip it."},
    "job_id": {"type": "string", "description": "cancel, pause, resume: the job's id (from create or list)."}
  },
  "required": ["action"],
  "additionalProperties": false
}`

const toolDesc = "Schedule work for later: reminders, recurring reports, periodic checks. " +
	"Each time a job runs you get its prompt as a new turn and your answer is delivered to the user. " +
	"Actions: create, list, cancel, pause, resume. Jobs belong to you and this user."

// Spec implements beamclaw.Tool.
func (t *Tool) Spec() beamclaw.ToolSpec {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(toolSchema)); err != nil {
		panic(fmt.Sprintf("scheduler tool schema is not JSON: %v", err))
	}
	return beamclaw.ToolSpec{
		Def: beamclaw.ToolDef{Name: "scheduler", Description: toolDesc, Parameters: buf.Bytes(), Source: "builtin"},
		// Creating work that runs later without the user is approved first
		// (a scheduled run, with nobody to ask, cannot create more).
		RequiresApproval: true,
		MinAutonomy:      beamclaw.Supervised,
		Risk:             beamclaw.RiskMedium,
	}
}

type toolArgs struct {
	Action   string `json:"action"`
	Schedule string `json:"schedule"`
	Prompt   string `json:"prompt"`
	Delivery string `json:"delivery"`
	Session  string `json:"session"`
	TimeZone string `json:"time_zone"`
	Misfire  string `json:"misfire"`
	JobID    string `json:"job_id"`
}

// Execute implements beamclaw.Tool.
func (t *Tool) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	var a toolArgs
	raw := inv.Args
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", fmt.Errorf("scheduler: invalid arguments: %w", err)
	}
	if inv.AgentID == "" || inv.UserID == "" {
		return "", errors.New("scheduler: this run has no agent or user to schedule for")
	}
	mine := func(j Job) bool { return j.Agent == inv.AgentID && j.UserID == inv.UserID && !j.Heartbeat }
	switch a.Action {
	case "create":
		return t.create(ctx, inv, a)
	case "list":
		return t.list(ctx, inv)
	case "cancel", "pause", "resume":
		if strings.TrimSpace(a.JobID) == "" {
			return "", fmt.Errorf("scheduler: %s needs job_id (see action list)", a.Action)
		}
		return t.control(ctx, a.Action, strings.TrimSpace(a.JobID), mine)
	case "":
		return "", errors.New("scheduler: action is required: create, list, cancel, pause or resume")
	}
	return "", fmt.Errorf("scheduler: unknown action %q; want create, list, cancel, pause or resume", a.Action)
}

func (t *Tool) create(ctx context.Context, inv beamclaw.Invocation, a toolArgs) (string, error) {
	if strings.TrimSpace(a.Schedule) == "" {
		return "", fmt.Errorf("scheduler: create needs schedule: %s", scheduleForms)
	}
	delivery := a.Delivery
	if delivery == "" && t.opts.DefaultDelivery != nil {
		delivery = t.opts.DefaultDelivery(inv)
	}
	if delivery == "" && (inv.Channel == beamclaw.ChannelTUI || inv.Channel == beamclaw.ChannelWS) {
		delivery = string(inv.Channel)
	}
	if delivery == "" {
		return "", fmt.Errorf("scheduler: create needs delivery from this channel: %s", deliveryForms)
	}
	tz := a.TimeZone
	if tz == "" && t.opts.TimeZone != nil {
		tz = t.opts.TimeZone(inv)
	}
	j, err := t.s.Add(ctx, AddRequest{Agent: inv.AgentID, UserID: inv.UserID, Schedule: a.Schedule, TimeZone: tz,
		Prompt: a.Prompt, Delivery: delivery, Session: SessionMode(a.Session), Misfire: Misfire(a.Misfire),
		Origin: OriginOf(inv)})
	if err != nil {
		return "", fmt.Errorf("scheduler: %s", beamclaw.UserMessage(err))
	}
	return fmt.Sprintf("Scheduled job %s (%s): next run %s; answers go to %s; session %s.",
		j.ID, j.Schedule.Spec, t.when(j.NextRunAt, j), j.Delivery.Kind, j.Session), nil
}

func (t *Tool) list(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	jobs, err := t.s.List(ctx, Filter{Agent: inv.AgentID, UserID: inv.UserID,
		States: []State{StateActive, StatePaused}})
	if err != nil {
		return "", fmt.Errorf("scheduler: %s", beamclaw.UserMessage(err))
	}
	var b strings.Builder
	for _, j := range jobs {
		if j.Heartbeat {
			continue
		}
		next := "-"
		if j.State == StateActive {
			next = t.when(j.NextRunAt, j)
		}
		fmt.Fprintf(&b, "- %s [%s] %s; next %s; runs %d; to %s; prompt: %s\n",
			j.ID, j.State, j.Schedule.Spec, next, j.FireCount, j.Delivery.Kind, clip(j.Prompt, 80))
		if j.Reason != "" && j.State != StateActive {
			fmt.Fprintf(&b, "  (%s)\n", j.Reason)
		}
	}
	if b.Len() == 0 {
		return "No scheduled jobs.", nil
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func (t *Tool) control(ctx context.Context, action, id string, mine func(Job) bool) (string, error) {
	var err error
	switch action {
	case "cancel":
		_, err = t.s.cancel(ctx, "scheduler.Cancel", id, mine)
	case "pause":
		_, err = t.s.change(ctx, "scheduler.Pause", id, mine, t.s.pauseFn)
	default:
		_, err = t.s.change(ctx, "scheduler.Resume", id, mine, t.s.resumeFn)
	}
	if err != nil {
		return "", fmt.Errorf("scheduler: %s", beamclaw.UserMessage(err))
	}
	past := map[string]string{"cancel": "canceled", "pause": "paused", "resume": "resumed"}[action]
	return fmt.Sprintf("Job %s %s.", id, past), nil
}

// when formats an instant in the job's zone with how far away it is.
func (t *Tool) when(at time.Time, j Job) string {
	if at.IsZero() {
		return "none"
	}
	d := at.Sub(t.s.clock.Now()).Round(time.Second)
	return fmt.Sprintf("%s (in %s)", at.In(j.Schedule.Location()).Format("2006-01-02 15:04 MST"), d)
}
