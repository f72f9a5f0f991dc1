package scheduler

import (
	"fmt"
	"strings"
	"time"
)

// Layouts of "at": absolute ones carry an offset, wall-clock ones are read
// in the schedule's zone.
var (
	absoluteLayouts = []string{time.RFC3339, "2006-01-02T15:04Z07:00"}
	wallLayouts     = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"}
	clockLayouts    = []string{"15:04", "15:04:05"}
)

func (s *Schedule) parseAt(rest []string, now time.Time) string {
	text := strings.Join(rest, " ")
	if text == "" {
		return "missing time; want at 2026-12-01T09:00, at 2026-12-01T09:00:00+01:00 or at 09:00"
	}
	at, ok := s.readAt(text, now)
	if !ok {
		return fmt.Sprintf("bad time %q; want 2026-12-01T09:00, 2026-12-01T09:00:00+01:00 or 09:00", text)
	}
	if !at.After(now) {
		return fmt.Sprintf("%s is in the past", at.In(s.Location()).Format(time.RFC3339))
	}
	s.Kind, s.At = KindOnce, at
	return ""
}

func (s *Schedule) readAt(text string, now time.Time) (time.Time, bool) {
	loc := s.Location()
	for _, l := range absoluteLayouts {
		if t, err := time.Parse(l, text); err == nil {
			return t, true
		}
	}
	for _, l := range wallLayouts {
		if w, err := time.ParseInLocation(l, text, time.UTC); err == nil {
			return fromWall(w, loc), true
		}
	}
	for _, l := range clockLayouts {
		c, err := time.ParseInLocation(l, text, time.UTC)
		if err != nil {
			continue
		}
		today := now.In(loc)
		for day := range 3 {
			w := time.Date(today.Year(), today.Month(), today.Day()+day, c.Hour(), c.Minute(), c.Second(), 0, time.UTC)
			if t := fromWall(w, loc); t.After(now) {
				return t, true
			}
		}
	}
	return time.Time{}, false
}
