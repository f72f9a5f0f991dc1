package scheduler

import (
	"time"
)

// Wall-clock times (the digits on a clock in some zone) are carried as
// time.Time values in UTC, so arithmetic on them knows no DST. fromWall
// turns one into the instant it names in a zone, by the rules of this
// package: a time that occurs twice (DST fall-back) is its first instant,
// a time that does not occur (spring-forward gap) is the first valid
// instant after the gap.

// wallOf returns the wall-clock reading of t in its own location.
func wallOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// fromWall returns the instant at which clocks in loc read w.
func fromWall(w time.Time, loc *time.Location) time.Time {
	if loc == time.UTC {
		return w
	}
	naive := w.Unix()
	var best time.Time
	// The offsets in force a day either side cover any one transition.
	for _, probe := range [2]int64{naive - 86400, naive + 86400} {
		_, off := time.Unix(probe, 0).In(loc).Zone()
		t := time.Unix(naive-int64(off), int64(w.Nanosecond())).In(loc)
		if _, got := t.Zone(); got == off && (best.IsZero() || t.Before(best)) {
			best = t
		}
	}
	if !best.IsZero() {
		return best
	}
	// In a gap: read with the offset before it, w lands after the
	// transition, whose instant is the start of the zone in force there.
	_, before := time.Unix(naive-86400, 0).In(loc).Zone()
	start, _ := time.Unix(naive-int64(before), 0).In(loc).ZoneBounds()
	if start.IsZero() {
		return time.Unix(naive-int64(before), int64(w.Nanosecond())).In(loc)
	}
	return start
}
