package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// HeartbeatSpec asks for one agent's heartbeat.
type HeartbeatSpec struct {
	Agent    string
	UserID   string        // whose check-in it is
	Delivery string        // where answers go (see ParseDelivery)
	Interval time.Duration // 0: Options.Heartbeat.Interval
	TimeZone string        // the user's zone, for active hours ("" = Options.TimeZone)
}

// heartbeatID is the job id of an agent's heartbeat.
func heartbeatID(agent string) string { return "hb-" + agent }

// SyncHeartbeats makes the heartbeat jobs match specs: one job per agent
// (id "hb-<agent>", schedule every Interval within the active hours,
// misfire skip, isolated light-context session), created or updated in
// place (a paused heartbeat stays paused); heartbeat jobs of agents not
// in specs are ended. The daemon calls it at start with the configured
// agents.
func (s *Scheduler) SyncHeartbeats(ctx context.Context, specs []HeartbeatSpec) error {
	const op = "scheduler.SyncHeartbeats"
	now := s.clock.Now()
	want := make(map[string]Job, len(specs))
	for _, sp := range specs {
		j, err := s.heartbeatJob(sp, now)
		if err != nil {
			return beamclaw.E(op, beamclaw.KindInvalid, err.Error(), err)
		}
		want[j.ID] = j
	}
	var (
		changed []string
		evs     []event
	)
	err := s.area.Update(func(tx *store.Tx) error {
		changed, evs = nil, nil // fn may run again: from scratch
		err := s.each(tx, func(old Job) error {
			if !old.Heartbeat || old.State == StateDone {
				return nil
			}
			if _, ok := want[old.ID]; !ok {
				old.State, old.Reason, old.NextRunAt, old.Updated = StateDone, "heartbeat no longer configured", time.Time{}, now
				changed = append(changed, old.ID)
				evs = append(evs, evCompleted(old, "canceled"))
				return putJob(tx, old)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for id, j := range want {
			old, ok, err := s.load(tx, id)
			if err != nil {
				return err
			}
			j, write := mergeHeartbeat(j, old, ok, now)
			if !write {
				continue
			}
			if !ok || old.State == StateDone {
				evs = append(evs, evCreated(j))
			}
			changed = append(changed, id)
			if err := putJob(tx, j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return wrapStore(op, err)
	}
	s.notify(changed...)
	s.emit(ctx, evs...)
	return nil
}

func (s *Scheduler) heartbeatJob(sp HeartbeatSpec, now time.Time) (Job, error) {
	sp.Agent, sp.UserID = strings.TrimSpace(sp.Agent), strings.TrimSpace(sp.UserID)
	if sp.Agent == "" || sp.UserID == "" {
		return Job{}, errors.New("a heartbeat needs an agent and a user id")
	}
	to, err := ParseDelivery(sp.Delivery)
	if err != nil {
		return Job{}, fmt.Errorf("heartbeat of %s: %w", sp.Agent, err)
	}
	every := sp.Interval
	if every <= 0 {
		every = s.opts.Heartbeat.Interval
	}
	if every < time.Second {
		return Job{}, fmt.Errorf("heartbeat of %s: interval must be at least 1s", sp.Agent)
	}
	tz := sp.TimeZone
	if tz == "" {
		tz = s.opts.TimeZone
	}
	loc, err := loadZone(tz)
	if err != nil {
		return Job{}, fmt.Errorf("heartbeat of %s: unknown time zone %q", sp.Agent, tz)
	}
	sched := Schedule{Kind: KindEvery, Spec: "every " + every.String(), TZ: zoneName(tz), Every: every,
		Anchor: now, Hours: s.opts.Heartbeat.ActiveHours, loc: loc}
	return Job{
		ID: heartbeatID(sp.Agent), Agent: sp.Agent, UserID: sp.UserID, Schedule: sched, Delivery: to,
		Session: SessionIsolated, Misfire: MisfireSkip, Heartbeat: true, State: StateActive,
		Created: now, Updated: now,
	}, nil
}

// mergeHeartbeat keeps what a stored heartbeat has earned (counters,
// anchor, a pause) and takes the configuration from j. write is false
// when nothing changed.
func mergeHeartbeat(j, old Job, found bool, now time.Time) (Job, bool) {
	if !found || old.State == StateDone || old.State == StateFailed {
		j.NextRunAt = j.Schedule.Next(now)
		return j, true
	}
	same := old.Schedule.Every == j.Schedule.Every && old.Schedule.TZ == j.Schedule.TZ &&
		old.Schedule.Hours == j.Schedule.Hours
	if same && old.UserID == j.UserID && old.Delivery == j.Delivery {
		return old, false
	}
	merged := old
	merged.UserID, merged.Delivery, merged.Updated = j.UserID, j.Delivery, now
	if !same {
		merged.Schedule = j.Schedule
		if merged.State == StateActive {
			merged.NextRunAt = merged.Schedule.Next(now)
		}
	}
	return merged, true
}
