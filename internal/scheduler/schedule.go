package scheduler

import (
	"time"
)

// ScheduleKind names a schedule form.
type ScheduleKind string

// The schedule forms.
const (
	KindOnce   ScheduleKind = "once"   // "in 20m", "at 2026-12-01T09:00"
	KindEvery  ScheduleKind = "every"  // "every 2h": anchored at creation, in real (UTC) time
	KindCron   ScheduleKind = "cron"   // "cron 0 9 * * 1-5": wall-clock times in the job's zone
	KindRandom ScheduleKind = "random" // "random 3 per 1d": N random instants per window
)

// maxScan bounds every search for a next instant, so a schedule that can
// never fire ends the search instead of spinning.
const maxScan = 1000

// Schedule says when a job runs. Next is a pure function of the schedule
// and a time: after a restart the next run is computed from the schedule
// (its anchor, its expression, its seed), never from "now" plus drift.
type Schedule struct {
	Kind ScheduleKind `json:"kind"`
	// Spec is the schedule as written, for display.
	Spec string `json:"spec"`
	// TZ is the IANA zone of at, cron and active hours; "" is UTC.
	TZ string `json:"tz,omitempty"`
	// At is the instant of a one-shot.
	At time.Time `json:"at,omitzero"`
	// Every is the interval of every, and the window of random.
	Every time.Duration `json:"every,omitempty"`
	// Count is how many random instants fall in each window.
	Count int `json:"count,omitempty"`
	// Cron is a five-field cron expression (or an @tag).
	Cron string `json:"cron,omitempty"`
	// Anchor is where interval ticks and random windows start.
	Anchor time.Time `json:"anchor,omitzero"`
	// Seed derives the random instants (the job id).
	Seed string `json:"seed,omitempty"`
	// Hours are active hours [start, end) in TZ; outside them the
	// schedule does not fire. The zero value means always.
	Hours [2]int `json:"hours,omitzero"`

	loc *time.Location
}

// Location is the schedule's zone (UTC when TZ is empty or unknown).
func (s Schedule) Location() *time.Location {
	if s.loc != nil {
		return s.loc
	}
	if s.TZ == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(s.TZ)
	if err != nil {
		return time.UTC
	}
	return loc
}

// Recurring reports whether the schedule fires more than once.
func (s Schedule) Recurring() bool { return s.Kind != KindOnce }

// Next returns the first instant strictly after after at which the
// schedule fires, or the zero time when it never fires again.
func (s Schedule) Next(after time.Time) time.Time {
	loc := s.Location()
	if s.Hours == [2]int{} {
		return s.next(after, loc)
	}
	from := after
	for range maxScan {
		t := s.next(from, loc)
		if t.IsZero() || inHours(s.Hours, t.In(loc).Hour()) {
			return t
		}
		from = windowStart(s.Hours[0], t, loc).Add(-time.Nanosecond)
	}
	return time.Time{}
}

func (s Schedule) next(after time.Time, loc *time.Location) time.Time {
	switch s.Kind {
	case KindOnce:
		if s.At.After(after) {
			return s.At
		}
	case KindEvery:
		return nextEvery(s.Anchor, s.Every, after)
	case KindCron:
		return nextCron(s.Cron, loc, after)
	case KindRandom:
		return s.nextRandom(after)
	}
	return time.Time{}
}

// nextEvery returns the first tick anchor + k*every (k >= 1) after after.
func nextEvery(anchor time.Time, every time.Duration, after time.Time) time.Time {
	if every <= 0 {
		return time.Time{}
	}
	if after.Before(anchor) {
		return anchor.Add(every)
	}
	k := after.Sub(anchor)/every + 1
	return anchor.Add(k * every)
}

// occurrences counts the instants of s in [from, to], from being one of
// them, and returns the last (capped at maxScan instants).
func (s Schedule) occurrences(from, to time.Time) (n int, last time.Time) {
	if from.After(to) {
		return 0, time.Time{}
	}
	if s.Kind == KindEvery && s.Hours == [2]int{} && s.Every > 0 {
		k := to.Sub(from) / s.Every
		return int(k) + 1, from.Add(k * s.Every)
	}
	n, last = 1, from
	for n < maxScan {
		t := s.Next(last)
		if t.IsZero() || t.After(to) {
			break
		}
		n, last = n+1, t
	}
	return n, last
}

// inHours reports whether hour h lies in [start, end), wrapping past
// midnight when start > end. The zero range is always.
func inHours(r [2]int, h int) bool {
	switch {
	case r[0] == r[1]:
		return true
	case r[0] < r[1]:
		return h >= r[0] && h < r[1]
	}
	return h >= r[0] || h < r[1]
}

// windowStart is the first instant after t at which the local hour
// start begins (the first valid instant when it falls in a DST gap).
func windowStart(start int, t time.Time, loc *time.Location) time.Time {
	lt := t.In(loc)
	for day := range 3 {
		w := time.Date(lt.Year(), lt.Month(), lt.Day()+day, start, 0, 0, 0, time.UTC)
		if c := fromWall(w, loc); c.After(t) {
			return c
		}
	}
	return t.Add(24 * time.Hour)
}
