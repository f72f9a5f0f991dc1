package scheduler

import (
	"errors"
	"testing"
	"time"
)

func TestParseSchedule(t *testing.T) {
	mustZone(t, "Europe/Berlin")
	now := mustTime(t, "2026-11-20T10:00:00Z")
	cases := []struct {
		spec, zone string
		kind       ScheduleKind
		next       string // the first instant after now
	}{
		{"in 20m", "", KindOnce, "2026-11-20T10:20:00Z"},
		{"in 1h30m", "", KindOnce, "2026-11-20T11:30:00Z"},
		{"IN 2d", "", KindOnce, "2026-11-22T10:00:00Z"},
		{"in 1 week", "", KindOnce, "2026-11-27T10:00:00Z"},
		{"at 2026-12-01T09:00", "", KindOnce, "2026-12-01T09:00:00Z"},
		{"at 2026-12-01T09:00 Europe/Berlin", "", KindOnce, "2026-12-01T08:00:00Z"},
		{"at 2026-12-01T09:00", "Europe/Berlin", KindOnce, "2026-12-01T08:00:00Z"},
		{"at 2026-12-01 09:00:30", "Europe/Berlin", KindOnce, "2026-12-01T08:00:30Z"},
		{"at 2026-12-01T09:00:00-05:00", "Europe/Berlin", KindOnce, "2026-12-01T14:00:00Z"},
		{"at 2026-12-01T09:00Z", "", KindOnce, "2026-12-01T09:00:00Z"},
		{"at 09:00", "", KindOnce, "2026-11-21T09:00:00Z"},
		{"at 12:15 Europe/Berlin", "", KindOnce, "2026-11-20T11:15:00Z"},
		{"every 2h", "", KindEvery, "2026-11-20T12:00:00Z"},
		{"every 90s", "Europe/Berlin", KindEvery, "2026-11-20T10:01:30Z"},
		{"every day", "", KindEvery, "2026-11-21T10:00:00Z"},
		{"cron 0 9 * * 1-5", "Europe/Berlin", KindCron, "2026-11-23T08:00:00Z"},
		{"0 9 * * MON-FRI", "", KindCron, "2026-11-23T09:00:00Z"},
		{"cron 0 9 * * * UTC", "Europe/Berlin", KindCron, "2026-11-21T09:00:00Z"},
		{"@hourly", "", KindCron, "2026-11-20T11:00:00Z"},
		{"cron @daily America/New_York", "", KindCron, "2026-11-21T05:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := ParseSchedule(tc.spec, ParseOptions{Now: now, TimeZone: tc.zone})
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind != tc.kind {
				t.Errorf("kind %s, want %s", s.Kind, tc.kind)
			}
			if got := s.Next(now).UTC().Format(time.RFC3339); got != tc.next {
				t.Errorf("next %s, want %s", got, tc.next)
			}
		})
	}
}

func TestParseScheduleErrors(t *testing.T) {
	now := mustTime(t, "2026-11-20T10:00:00Z")
	cases := []struct{ spec, zone, want string }{
		{"every 0h", "", `schedule "every 0h": interval must be positive`},
		{"every 500ms", "", `schedule "every 500ms": bad duration "500ms" (want a number and a unit s, m, h, d or w, like 20m or 1h30m)`},
		{"every", "", `schedule "every": missing duration (like 30s, 20m, 2h, 1d, 1w)`},
		{"every 2h Europe/Berlin", "", `schedule "every 2h Europe/Berlin": "every" runs in real time; a time zone applies to at and cron`},
		{"in 0m", "", `schedule "in 0m": delay must be positive`},
		{"in 20 parsecs", "", `schedule "in 20 parsecs": bad duration "20parsecs" (want a number and a unit s, m, h, d or w, like 20m or 1h30m)`},
		{"in 99999999999999d", "", `schedule "in 99999999999999d": bad duration "99999999999999d" (want a number and a unit s, m, h, d or w, like 20m or 1h30m)`},
		{"in 3000d", "", `schedule "in 3000d": duration "3000d" is too long (at most 5 years)`},
		{"at 2026-01-01T09:00", "", `schedule "at 2026-01-01T09:00": 2026-01-01T09:00:00Z is in the past`},
		{"at tomorrow", "", `schedule "at tomorrow": bad time "tomorrow"; want 2026-12-01T09:00, 2026-12-01T09:00:00+01:00 or 09:00`},
		{"at 2026-12-01T09:00 Mars/Olympus", "", `schedule "at 2026-12-01T09:00 Mars/Olympus": unknown time zone "Mars/Olympus"`},
		{"at 2026-12-01T09:00", "Nowhere/Land", `schedule "at 2026-12-01T09:00": unknown time zone "Nowhere/Land"`},
		{"cron 61 * * * *", "", `schedule "cron 61 * * * *": invalid cron expression`},
		{"cron * * * *", "", `schedule "cron * * * *": a cron expression has 5 fields (minute hour day-of-month month day-of-week)`},
		{"cron 0 0 30 2 *", "", `schedule "cron 0 0 30 2 *": the cron expression never fires`},
		{"@everysecond", "", `schedule "@everysecond": unknown cron tag @everysecond; want @yearly, @monthly, @weekly, @daily or @hourly`},
		{"random 3 per 2m", "", `schedule "random 3 per 2m": 3 random times per 2m0s leave less than a minute each`},
		{"random 0 per 1d", "", `schedule "random 0 per 1d": the count must be a positive whole number; want "random N per DURATION", e.g. "random 3 per 1d"`},
		{"random 3 1d", "", `schedule "random 3 1d": want "random N per DURATION", e.g. "random 3 per 1d"`},
		{"whenever", "", `schedule "whenever": unknown form "whenever"; want ` + scheduleForms},
		{"  ", "", `schedule "  ": empty; want ` + scheduleForms},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := ParseSchedule(tc.spec, ParseOptions{Now: now, TimeZone: tc.zone})
			var se *ScheduleError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *ScheduleError", err)
			}
			if err.Error() != tc.want {
				t.Errorf("err = %s\nwant  %s", err, tc.want)
			}
		})
	}
}

func TestParseAtInDSTGap(t *testing.T) {
	mustZone(t, "Europe/Berlin")
	now := mustTime(t, "2026-03-01T00:00:00Z")
	s := mustParse(t, "at 2026-03-29T02:30 Europe/Berlin", ParseOptions{Now: now})
	if got := s.At.UTC().Format(time.RFC3339); got != "2026-03-29T01:00:00Z" {
		t.Errorf("at in the gap = %s, want the first valid instant 2026-03-29T01:00:00Z (03:00 CEST)", got)
	}
	s = mustParse(t, "at 2026-10-25T02:30 Europe/Berlin", ParseOptions{Now: now})
	if got := s.At.UTC().Format(time.RFC3339); got != "2026-10-25T00:30:00Z" {
		t.Errorf("at in the repeated hour = %s, want its first instant 2026-10-25T00:30:00Z", got)
	}
}
