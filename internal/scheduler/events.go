package scheduler

import (
	"context"
	"log/slog"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// event is an observability event decided inside a transaction and
// emitted once it committed. Its sessionID is the event's own field (the
// log writes it as session_id): attrs must not repeat it.
type event struct {
	name      beamclaw.EventName
	sessionID string
	attrs     []slog.Attr
}

func (s *Scheduler) emit(ctx context.Context, evs ...event) {
	if s.opts.Emitter == nil {
		return
	}
	now := s.clock.Now()
	for _, e := range evs {
		s.opts.Emitter.Emit(ctx, beamclaw.Event{Name: e.name, SessionID: e.sessionID, Time: now, Attrs: e.attrs})
	}
}

func evCreated(j Job) event {
	return event{name: beamclaw.EventSchedJobCreated, attrs: []slog.Attr{
		slog.String("job_id", j.ID), slog.String("schedule_type", string(j.Schedule.Kind)),
		slog.String("agent_id", j.Agent), slog.Bool("heartbeat", j.Heartbeat)}}
}

func evFired(j Job, sessionID string) event {
	return event{name: beamclaw.EventSchedJobFired, sessionID: sessionID, attrs: []slog.Attr{
		slog.String("job_id", j.ID), slog.Bool("heartbeat", j.Heartbeat)}}
}

// evCompleted: the job is done (reason finished or canceled).
func evCompleted(j Job, reason string) event {
	return event{name: beamclaw.EventSchedJobCompleted, attrs: []slog.Attr{
		slog.String("job_id", j.ID), slog.Int64("fire_count", j.FireCount), slog.String("reason", reason)}}
}

func evFailed(j Job, errText string) event {
	return event{name: beamclaw.EventSchedJobFailed, attrs: []slog.Attr{
		slog.String("job_id", j.ID), slog.String("error", errText), slog.Int("error_count", j.ConsecutiveErrors)}}
}

// evPaused: reason is "manual" or "auto".
func evPaused(j Job, reason string) event {
	return event{name: beamclaw.EventSchedJobPaused, attrs: []slog.Attr{
		slog.String("job_id", j.ID), slog.String("reason", reason)}}
}

// Reasons of sched_job_skipped.
const (
	skipMisfire     = "misfire"     // due while stopped or late, policy skip
	skipMissed      = "missed"      // run_once, but past the grace window
	skipOverlap     = "overlap"     // the previous run was still running
	skipInterrupted = "interrupted" // a stop ended a run midway
	skipIdle        = "idle"        // a heartbeat with nothing to do
)

func evSkipped(j Job, reason string, missed int) event {
	return event{name: beamclaw.EventSchedJobSkipped, attrs: []slog.Attr{
		slog.String("job_id", j.ID), slog.String("reason", reason), slog.Int("missed", missed)}}
}

func evSuppressed(j Job, sessionID string) event {
	return event{name: beamclaw.EventSchedSuppressed, sessionID: sessionID, attrs: []slog.Attr{
		slog.String("job_id", j.ID)}}
}
