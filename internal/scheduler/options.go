package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/scrub"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// Defaults of Options (spec: scheduler.*).
const (
	DefaultMaxJobsPerAgent    = 50               // scheduler.max_jobs_per_agent
	DefaultMaxJobsPerUser     = 10               // scheduler.max_jobs_per_user
	DefaultMaxErrors          = 3                // scheduler.max_errors
	DefaultHeartbeatInterval  = 30 * time.Minute // scheduler.heartbeat.default_interval_ms
	DefaultHeartbeatMaxTokens = 2000
	DefaultMisfireThreshold   = time.Minute
	DefaultRunHistory         = 50
	DefaultWorkers            = 4
	DefaultRunTimeout         = 15 * time.Minute
	DefaultDeliveryTimeout    = 30 * time.Second
	DefaultMaxSleep           = time.Minute
	DefaultRetainFinished     = 30 * 24 * time.Hour
)

// DefaultBackoff is the wait after the 1st, 2nd, ... consecutive failure.
func DefaultBackoff() []time.Duration {
	return []time.Duration{30 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}
}

// Emitter receives observability events; Emit must not block (obs.Bus).
type Emitter interface {
	Emit(ctx context.Context, ev beamclaw.Event)
}

// Options configure a Scheduler. Zero values take the defaults.
type Options struct {
	// DB holds the jobs. Required.
	DB *store.DB
	// Turns runs agent turns. Required to serve (the executor stops the
	// tree with a clear error without it); the management API works
	// without it, for the CLI when no daemon runs.
	Turns Turns
	// Deliverer sends answers to telegram, tui and ws targets; without it
	// those deliveries fail (and count as failed runs).
	Deliverer Deliverer
	// Webhook configures webhook delivery.
	Webhook WebhookOptions
	// Heartbeat configures heartbeats (see SyncHeartbeats).
	Heartbeat HeartbeatOptions

	MaxJobsPerAgent int               // active and paused jobs per agent, heartbeats aside
	MaxJobsPerUser  int               // those a user made in conversation (Job.Origin set), over all agents; the owner's are not counted
	MaxErrors       int               // consecutive failures before a job is paused
	DefaultAutonomy beamclaw.Autonomy // of runs of jobs that name none (default supervised)
	// Backoff is the wait before retrying after the n-th consecutive
	// failure (the last value repeats); DefaultBackoff when empty.
	Backoff []time.Duration
	// TimeZone is the IANA zone of at and cron when neither the schedule
	// nor the request names one ("" is UTC).
	TimeZone string
	// Grace is the grace window of new run_once jobs: a run missed by more
	// than this is recorded as missed instead of run. 0: no limit.
	Grace time.Duration
	// MisfireThreshold: a run found due longer ago than this (a suspended
	// machine, a stalled runner) follows the job's misfire policy, like a
	// run that fell due while beamclaw was stopped.
	MisfireThreshold time.Duration
	RunHistory       int           // runs kept per job
	Workers          int           // runs executing at once
	RunTimeout       time.Duration // bound on one turn
	DeliveryTimeout  time.Duration // bound on one delivery
	// MaxSleep is the longest the runner sleeps before reading the wall
	// clock again (so a suspended machine is noticed).
	MaxSleep time.Duration
	// RetainFinished: done and failed jobs older than this are deleted
	// with their runs when the runner starts. Negative keeps them.
	RetainFinished time.Duration

	// CheckTarget, when set, refuses a new job's delivery that names no
	// configured target (a webhook endpoint that does not exist), so the
	// mistake is said when the job is made, not when it fires.
	CheckTarget func(Delivery) error

	// Scrub cleans error texts and answer excerpts before they are stored
	// or emitted (scrub.String when nil; the daemon passes its Scrubber's).
	Scrub func(string) string
	// NewID returns a new job id (random "job-" ids when nil).
	NewID   func() string
	Emitter Emitter
	Logger  *slog.Logger
	Clock   clock.Clock
}

func (o Options) withDefaults() (Options, error) {
	if o.DB == nil {
		return o, errors.New("scheduler: Options.DB is required")
	}
	setInt(&o.MaxJobsPerAgent, DefaultMaxJobsPerAgent)
	setInt(&o.MaxJobsPerUser, DefaultMaxJobsPerUser)
	setInt(&o.MaxErrors, DefaultMaxErrors)
	setInt(&o.RunHistory, DefaultRunHistory)
	setInt(&o.Workers, DefaultWorkers)
	if o.DefaultAutonomy == "" {
		o.DefaultAutonomy = beamclaw.Supervised
	}
	if _, err := beamclaw.ParseAutonomy(string(o.DefaultAutonomy)); err != nil {
		return o, err
	}
	if _, err := loadZone(o.TimeZone); err != nil {
		return o, err
	}
	if len(o.Backoff) == 0 {
		o.Backoff = DefaultBackoff()
	}
	setDur(&o.MisfireThreshold, DefaultMisfireThreshold)
	setDur(&o.RunTimeout, DefaultRunTimeout)
	setDur(&o.DeliveryTimeout, DefaultDeliveryTimeout)
	setDur(&o.MaxSleep, DefaultMaxSleep)
	if o.RetainFinished == 0 {
		o.RetainFinished = DefaultRetainFinished
	}
	setDur(&o.Heartbeat.Interval, DefaultHeartbeatInterval)
	setInt(&o.Heartbeat.MaxTokens, DefaultHeartbeatMaxTokens)
	if o.Scrub == nil {
		o.Scrub = scrub.String
	}
	if o.NewID == nil {
		o.NewID = randomID
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Clock = clock.Or(o.Clock)
	return o, nil
}

func setInt(v *int, def int) {
	if *v <= 0 {
		*v = def
	}
}

func setDur(v *time.Duration, def time.Duration) {
	if *v <= 0 {
		*v = def
	}
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "job-" + hex.EncodeToString(b[:])
}
