package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// SchedulerBackend manages scheduled jobs, through the running daemon or,
// without one, on the store directly (the next start picks them up).
type SchedulerBackend interface {
	SchedulerList(ctx context.Context, agent string, all bool) (protocol.SchedJobList, error)
	SchedulerAdd(ctx context.Context, req protocol.SchedAdd) (protocol.SchedJob, error)
	SchedulerControl(ctx context.Context, action, id string) (protocol.SchedJob, error)
	SchedulerRuns(ctx context.Context, id string) (protocol.SchedRunList, error)
}

func (a *app) newSchedulerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scheduler",
		Short: "List, add, cancel, pause and resume scheduled jobs and see their runs",
		Long: "Scheduled jobs run an agent turn on a schedule and deliver the answer: one-shot (in 20m,\n" +
			"at 2026-12-01T09:00), interval (every 2h), cron in a time zone (cron 0 9 * * 1-5 Europe/Berlin)\n" +
			"or random slots (random 3 per 1d). Each agent also has a heartbeat (hb-AGENT) driven by its\n" +
			"workspace's HEARTBEAT.md. Needs scheduler.enabled: true. See docs/scheduler.md.",
		Example: "  beamclaw scheduler add --agent default --schedule 'cron 0 9 * * 1-5' \\\n" +
			"      --prompt 'Summarise my open tasks' --deliver tui\n" +
			"  beamclaw scheduler add --schedule 'in 20m' --prompt 'Remind me to call Ana' --deliver telegram:123456\n" +
			"  beamclaw scheduler list\n" +
			"  beamclaw scheduler runs job-3fa9c2d1e0b4\n" +
			"  beamclaw scheduler pause job-3fa9c2d1e0b4",
	}
	cmd.AddCommand(a.newSchedListCmd(), a.newSchedAddCmd(), a.newSchedRunsCmd(),
		a.newSchedActionCmd("cancel", "Cancel a job (it is kept as done)"),
		a.newSchedActionCmd("pause", "Pause a job"),
		a.newSchedActionCmd("resume", "Resume a paused job"))
	return cmd
}

func (a *app) newSchedListCmd() *cobra.Command {
	var agent string
	var all bool
	cmd := shows(a, &cobra.Command{
		Use:   "list",
		Short: "List active and paused jobs (--all: done and failed too)",
		Args:  cobra.NoArgs,
	}, "print as JSON",
		func(cmd *cobra.Command, _ []string) (protocol.SchedJobList, error) {
			return a.backend().SchedulerList(cmd.Context(), agent, all)
		},
		func(list protocol.SchedJobList) error {
			if len(list.Jobs) == 0 {
				fmt.Fprintln(a.stdout, "no scheduled jobs")
				return nil
			}
			t := newTable(a.stdout, "ID", "AGENT", "SCHEDULE", "STATE", "NEXT RUN", "RUNS", "DELIVER", "PROMPT")
			for _, j := range list.Jobs {
				t.row(j.ID, j.Agent, j.Schedule, jobState(j), when(j.NextRunAt), fmt.Sprint(j.FireCount), j.Deliver, oneLine(j.Prompt, 40))
			}
			return t.flush()
		})
	cmd.Flags().StringVar(&agent, "agent", "", "only this agent's jobs")
	cmd.Flags().BoolVar(&all, "all", false, "done and failed jobs too")
	_ = cmd.RegisterFlagCompletionFunc("agent", a.completeAgents)
	return cmd
}

func jobState(j protocol.SchedJob) string {
	s := j.State
	if j.Running {
		s += ", running"
	}
	if j.ConsecutiveErrors > 0 {
		s += fmt.Sprintf(" (%d errors)", j.ConsecutiveErrors)
	}
	return s
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func (a *app) newSchedAddCmd() *cobra.Command {
	var req protocol.SchedAdd
	cmd := shows(a, &cobra.Command{
		Use:   "add --schedule WHEN --prompt TEXT --deliver WHERE",
		Short: "Add a job",
		Args:  cobra.NoArgs,
	}, "print the job as JSON",
		func(cmd *cobra.Command, _ []string) (protocol.SchedJob, error) {
			if req.User == "" {
				req.User = terminalUserID()
			}
			return a.backend().SchedulerAdd(cmd.Context(), req)
		},
		func(j protocol.SchedJob) error {
			fmt.Fprintf(a.stdout, "added %s (%s), next run %s\n", j.ID, j.Schedule, when(j.NextRunAt))
			return nil
		})
	f := cmd.Flags()
	f.StringVar(&req.Agent, "agent", "default", "the agent that runs the job")
	f.StringVar(&req.Schedule, "schedule", "", "in 20m | at 2026-12-01T09:00 | every 2h | cron 0 9 * * 1-5 [ZONE] | random 3 per 1d")
	f.StringVar(&req.Prompt, "prompt", "", "the instruction the agent is given each time the job runs")
	f.StringVar(&req.Deliver, "deliver", "", "where the answer goes: tui | ws | telegram:<chat> | webhook:<URL> | silent")
	f.StringVar(&req.Session, "session", "", "shared (default: the user's session with the agent) or isolated (a session of its own)")
	f.StringVar(&req.Misfire, "misfire", "", "a run due while beamclaw was stopped: run_once (default) or skip")
	f.StringVar(&req.TimeZone, "time-zone", "", "IANA zone of at and cron (default scheduler.time_zone)")
	f.StringVar(&req.User, "user", "", "whose session a shared job runs in (default: the terminal's user, local:$USER)")
	for _, name := range []string{"schedule", "prompt", "deliver"} {
		_ = cmd.MarkFlagRequired(name)
	}
	_ = cmd.RegisterFlagCompletionFunc("agent", a.completeAgents)
	return cmd
}

func (a *app) newSchedActionCmd(action, short string) *cobra.Command {
	return &cobra.Command{
		Use:   action + " ID",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			j, err := a.backend().SchedulerControl(cmd.Context(), action, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", j.ID, jobState(j))
			return nil
		},
	}
}

func (a *app) newSchedRunsCmd() *cobra.Command {
	return shows(a, &cobra.Command{
		Use:   "runs ID",
		Short: "Show a job's runs, newest first",
		Args:  cobra.ExactArgs(1),
	}, "print as JSON",
		func(cmd *cobra.Command, args []string) (protocol.SchedRunList, error) {
			return a.backend().SchedulerRuns(cmd.Context(), args[0])
		},
		a.printRuns)
}

func (a *app) printRuns(list protocol.SchedRunList) error {
	if len(list.Runs) == 0 {
		fmt.Fprintln(a.stdout, "no runs yet")
		return nil
	}
	t := newTable(a.stdout, "DUE", "STARTED", "OUTCOME", "DETAIL")
	for _, r := range list.Runs {
		detail := r.Excerpt
		switch {
		case r.Error != "":
			detail = r.Error
		case r.Reason != "":
			detail = r.Reason
		}
		if r.Missed > 0 {
			detail = fmt.Sprintf("%s (+%d missed)", detail, r.Missed)
		}
		t.row(when(r.Due), when(r.Started), r.Outcome, oneLine(detail, 60))
	}
	return t.flush()
}

// terminalUserID is the user id the daemon gives this terminal's user:
// BEAMCLAW_USER as it is, else local:$USER.
func terminalUserID() string {
	if u := os.Getenv("BEAMCLAW_USER"); u != "" {
		return u
	}
	return "local:" + localUser()
}
