package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// maxPromptLen bounds a job's prompt, in characters.
const maxPromptLen = 8000

// AddRequest describes a new job.
type AddRequest struct {
	Agent    string // required
	UserID   string // required: whose session a shared job runs in
	Schedule string // required: see ParseSchedule
	TimeZone string // IANA zone of at and cron ("" = Options.TimeZone)
	Prompt   string // required
	Delivery string // required: see ParseDelivery
	Session  SessionMode
	Misfire  Misfire           // "" = run_once
	Grace    time.Duration     // 0 = Options.Grace
	Autonomy beamclaw.Autonomy // "" = Options.DefaultAutonomy when it runs
	// Origin is the trust of the conversation making the job (the
	// scheduler tool: OriginOf); nil for the owner's own (the CLI).
	Origin *Origin
}

// Add validates and stores a new job and wakes the runner. Errors are
// *beamclaw.Error: KindInvalid for bad input (the message says what is
// wrong), KindForbidden past MaxJobsPerAgent or, for a job made in
// conversation (req.Origin), past MaxJobsPerUser.
func (s *Scheduler) Add(ctx context.Context, req AddRequest) (Job, error) {
	const op = "scheduler.Add"
	now := s.clock.Now()
	j, err := s.newJob(req, now)
	if err != nil {
		return Job{}, beamclaw.E(op, beamclaw.KindInvalid, err.Error(), err)
	}
	if err := s.webhook.Check(ctx, j.Delivery); err != nil {
		return Job{}, beamclaw.E(op, beamclaw.KindInvalid, err.Error(), nil)
	}
	err = s.area.Update(func(tx *store.Tx) error {
		if err := s.checkQuota(tx, op, j); err != nil {
			return err
		}
		if _, exists, err := getJob(tx, j.ID); err != nil || exists {
			return errors.Join(err, fmt.Errorf("job id %s is taken", j.ID))
		}
		return putJob(tx, j)
	})
	if err != nil {
		return Job{}, wrapStore(op, err)
	}
	s.notify(j.ID)
	s.emit(ctx, evCreated(j))
	return j, nil
}

func (s *Scheduler) newJob(req AddRequest, now time.Time) (Job, error) {
	req.Agent, req.UserID, req.Prompt = strings.TrimSpace(req.Agent), strings.TrimSpace(req.UserID), strings.TrimSpace(req.Prompt)
	switch {
	case req.Agent == "":
		return Job{}, errors.New("agent is required")
	case req.UserID == "":
		return Job{}, errors.New("user id is required")
	case req.Prompt == "":
		return Job{}, errors.New("prompt is required")
	case utf8.RuneCountInString(req.Prompt) > maxPromptLen:
		return Job{}, fmt.Errorf("prompt is too long (at most %d characters)", maxPromptLen)
	case req.Grace < 0:
		return Job{}, errors.New("grace window must not be negative")
	}
	if req.Session == "" {
		req.Session = SessionShared
	}
	if req.Session != SessionShared && req.Session != SessionIsolated {
		return Job{}, fmt.Errorf("session %q: want shared or isolated", req.Session)
	}
	if req.Misfire == "" {
		req.Misfire = MisfireRunOnce
	}
	if req.Misfire != MisfireRunOnce && req.Misfire != MisfireSkip {
		return Job{}, fmt.Errorf("misfire %q: want run_once or skip", req.Misfire)
	}
	if req.Autonomy != "" {
		if _, err := beamclaw.ParseAutonomy(string(req.Autonomy)); err != nil {
			return Job{}, err
		}
	}
	if req.Grace == 0 {
		req.Grace = s.opts.Grace
	}
	if strings.TrimSpace(req.Delivery) == "" {
		return Job{}, fmt.Errorf("delivery is required: %s", deliveryForms)
	}
	to, err := ParseDelivery(req.Delivery)
	if err != nil {
		return Job{}, err
	}
	if s.opts.CheckTarget != nil {
		if err := s.opts.CheckTarget(to); err != nil {
			return Job{}, beamclaw.E("scheduler.Add", beamclaw.KindInvalid, err.Error(), nil) // the message is the whole error
		}
	}

	id := s.opts.NewID()
	tz := req.TimeZone
	if tz == "" {
		tz = s.opts.TimeZone
	}
	sched, err := ParseSchedule(req.Schedule, ParseOptions{Now: now, TimeZone: tz, Seed: id})
	if err != nil {
		return Job{}, err
	}
	next := sched.Next(now)
	if next.IsZero() {
		return Job{}, fmt.Errorf("schedule %q never fires", req.Schedule)
	}
	return Job{
		ID: id, Agent: req.Agent, UserID: req.UserID, Prompt: req.Prompt, Schedule: sched,
		Delivery: to, Session: req.Session, Misfire: req.Misfire, Grace: req.Grace, Autonomy: req.Autonomy,
		Origin: req.Origin, State: StateActive, NextRunAt: next, Created: now, Updated: now,
	}, nil
}

// checkQuota refuses j (KindForbidden) when its agent has
// MaxJobsPerAgent active or paused jobs, heartbeats aside, or when it is
// made in conversation and its user already made MaxJobsPerUser of them
// so, over all agents.
func (s *Scheduler) checkQuota(tx *store.Tx, op string, j Job) error {
	perAgent, perUser := 0, 0
	err := eachJob(tx, func(o Job) error {
		if o.Heartbeat || (o.State != StateActive && o.State != StatePaused) {
			return nil
		}
		if o.Agent == j.Agent {
			perAgent++
		}
		if o.Origin != nil && o.UserID == j.UserID {
			perUser++
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case perAgent >= s.opts.MaxJobsPerAgent:
		return beamclaw.E(op, beamclaw.KindForbidden, fmt.Sprintf(
			"agent %s already has %d scheduled jobs, the limit (scheduler.max_jobs_per_agent); cancel one first",
			j.Agent, perAgent), nil)
	case j.Origin != nil && perUser >= s.opts.MaxJobsPerUser:
		return beamclaw.E(op, beamclaw.KindForbidden, fmt.Sprintf(
			"%s already has %d scheduled jobs, the limit per user (scheduler.max_jobs_per_user); cancel one first",
			j.UserID, perUser), nil)
	}
	return nil
}

// Filter selects jobs for List. Zero fields select everything.
type Filter struct {
	Agent  string
	UserID string
	States []State // nil: every state
}

func (f Filter) match(j Job) bool {
	return (f.Agent == "" || j.Agent == f.Agent) && (f.UserID == "" || j.UserID == f.UserID) &&
		(len(f.States) == 0 || slices.Contains(f.States, j.State))
}

// List returns the jobs f selects, oldest first.
func (s *Scheduler) List(ctx context.Context, f Filter) ([]Job, error) {
	var out []Job
	err := s.area.View(func(tx *store.Tx) error {
		return s.each(tx, func(j Job) error {
			if f.match(j) {
				out = append(out, j)
			}
			return nil
		})
	})
	if err != nil {
		return nil, wrapStore("scheduler.List", err)
	}
	slices.SortFunc(out, func(a, b Job) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Get returns one job (KindNotFound when there is none).
func (s *Scheduler) Get(ctx context.Context, id string) (Job, error) {
	var j Job
	err := s.area.View(func(tx *store.Tx) error {
		var ok bool
		var err error
		j, ok, err = s.load(tx, id)
		if err == nil && !ok {
			return notFound("scheduler.Get", id)
		}
		return err
	})
	return j, wrapStore("scheduler.Get", err)
}

// Runs returns up to limit runs of a job, newest first (limit <= 0: all
// that are kept).
func (s *Scheduler) Runs(ctx context.Context, id string, limit int) ([]Run, error) {
	var out []Run
	err := s.area.View(func(tx *store.Tx) error {
		if _, ok, err := getJob(tx, id); err != nil || !ok {
			return errors.Join(err, notFoundIf(!ok && err == nil, "scheduler.Runs", id))
		}
		var err error
		out, err = lastRuns(tx, id, limit)
		return err
	})
	return out, wrapStore("scheduler.Runs", err)
}

func notFound(op, id string) error {
	return beamclaw.E(op, beamclaw.KindNotFound, fmt.Sprintf("no scheduled job %s", id), nil)
}

func notFoundIf(cond bool, op, id string) error {
	if !cond {
		return nil
	}
	return notFound(op, id)
}

// wrapStore passes *beamclaw.Error through and wraps anything else (a
// bbolt failure) as KindUnavailable.
func wrapStore(op string, err error) error {
	if err == nil {
		return nil
	}
	var be *beamclaw.Error
	if errors.As(err, &be) {
		return err
	}
	return beamclaw.E(op, beamclaw.KindUnavailable, "the job store failed", err)
}
