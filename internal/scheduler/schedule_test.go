package scheduler

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/test/testenv"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		testenv.Unavailable(t, fmt.Sprintf("time zone %s (%v)", name, err), "apt-get install tzdata")
	}
	return loc
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustParse(t testing.TB, spec string, opts ParseOptions) Schedule {
	t.Helper()
	s, err := ParseSchedule(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// chain returns the first n instants of s after from, in RFC 3339 in the
// schedule's zone.
func chain(s Schedule, from time.Time, n int) []string {
	var out []string
	for range n {
		from = s.Next(from)
		if from.IsZero() {
			out = append(out, "never")
			break
		}
		out = append(out, from.In(s.Location()).Format(time.RFC3339))
	}
	return out
}

// TestCronDST checks the 2026 transitions: a wall-clock time that occurs
// twice fires once (its first instant), one that does not occur fires at
// the first valid instant after the gap.
func TestCronDST(t *testing.T) {
	mustZone(t, "Europe/Berlin")
	mustZone(t, "America/New_York")
	cases := []struct {
		name, spec, zone, from string
		want                   []string
	}{
		{"berlin spring daily in the gap", "cron 30 2 * * *", "Europe/Berlin", "2026-03-28T03:00:00+01:00",
			[]string{"2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}},
		{"berlin spring hourly", "cron 0 * * * *", "Europe/Berlin", "2026-03-29T00:30:00+01:00",
			[]string{"2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T04:00:00+02:00"}},
		{"berlin spring quarter hours coalesce", "cron */15 * * * *", "Europe/Berlin", "2026-03-29T01:50:00+01:00",
			[]string{"2026-03-29T03:00:00+02:00", "2026-03-29T03:15:00+02:00"}},
		{"berlin fall daily in the repeated hour", "cron 30 2 * * *", "Europe/Berlin", "2026-10-24T03:00:00+02:00",
			[]string{"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}},
		{"berlin fall hourly", "cron 0 * * * *", "Europe/Berlin", "2026-10-25T00:30:00+02:00",
			[]string{"2026-10-25T01:00:00+02:00", "2026-10-25T02:00:00+02:00", "2026-10-25T03:00:00+01:00"}},
		{"berlin fall from inside the second pass", "cron 30 2 * * *", "Europe/Berlin", "2026-10-25T02:10:00+01:00",
			[]string{"2026-10-26T02:30:00+01:00"}},
		{"new york spring daily in the gap", "cron 30 2 * * *", "America/New_York", "2026-03-07T12:00:00-05:00",
			[]string{"2026-03-08T03:00:00-04:00", "2026-03-09T02:30:00-04:00"}},
		{"new york fall daily in the repeated hour", "cron 30 1 * * *", "America/New_York", "2026-10-31T12:00:00-04:00",
			[]string{"2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"}},
		{"new york fall every ten minutes", "cron */20 1 * * *", "America/New_York", "2026-11-01T00:50:00-04:00",
			[]string{"2026-11-01T01:00:00-04:00", "2026-11-01T01:20:00-04:00", "2026-11-01T01:40:00-04:00", "2026-11-02T01:00:00-05:00"}},
		{"weekdays at nine", "cron 0 9 * * 1-5", "Europe/Berlin", "2026-12-04T10:00:00+01:00",
			[]string{"2026-12-07T09:00:00+01:00", "2026-12-08T09:00:00+01:00"}},
		{"tag", "@daily", "America/New_York", "2026-03-07T12:00:00-05:00",
			[]string{"2026-03-08T00:00:00-05:00", "2026-03-09T00:00:00-04:00"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			from := mustTime(t, tc.from)
			s := mustParse(t, tc.spec, ParseOptions{Now: from, TimeZone: tc.zone})
			if diff := cmp.Diff(tc.want, chain(s, from, len(tc.want))); diff != "" {
				t.Errorf("next instants (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCronDSTOneRunPerDay walks whole transition days minute by minute of
// real time: each daily wall-clock time fires exactly once.
func TestCronDSTOneRunPerDay(t *testing.T) {
	for _, tc := range []struct{ zone, day string }{
		{"Europe/Berlin", "2026-03-29"}, {"Europe/Berlin", "2026-10-25"},
		{"America/New_York", "2026-03-08"}, {"America/New_York", "2026-11-01"},
	} {
		loc := mustZone(t, tc.zone)
		for _, hm := range []string{"00:30", "01:30", "02:00", "02:30", "03:00", "12:00"} {
			t.Run(tc.zone+" "+tc.day+" "+hm, func(t *testing.T) {
				hm, err := time.Parse("15:04", hm)
				if err != nil {
					t.Fatal(err)
				}
				day, _ := time.ParseInLocation("2006-01-02", tc.day, loc)
				s := mustParse(t, fmt.Sprintf("cron %d %d * * *", hm.Minute(), hm.Hour()), ParseOptions{Now: day, TimeZone: tc.zone})
				runs := 0
				for at := s.Next(day.Add(-time.Nanosecond)); !at.IsZero() && at.Before(day.AddDate(0, 0, 1)); at = s.Next(at) {
					runs++
				}
				if runs != 1 {
					t.Errorf("%d runs on %s, want exactly 1", runs, tc.day)
				}
			})
		}
	}
}

func TestFromWall(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	cases := []struct{ wall, want string }{
		{"2026-07-01T12:00:00Z", "2026-07-01T12:00:00+02:00"},
		{"2026-03-29T02:30:00Z", "2026-03-29T03:00:00+02:00"}, // gap: first valid instant
		{"2026-03-29T02:00:00Z", "2026-03-29T03:00:00+02:00"},
		{"2026-03-29T03:00:00Z", "2026-03-29T03:00:00+02:00"},
		{"2026-10-25T02:30:00Z", "2026-10-25T02:30:00+02:00"}, // repeated: first instant
		{"2026-10-25T03:00:00Z", "2026-10-25T03:00:00+01:00"},
	}
	for _, tc := range cases {
		got := fromWall(mustTime(t, tc.wall), berlin).Format(time.RFC3339)
		if got != tc.want {
			t.Errorf("fromWall(%s) = %s, want %s", tc.wall, got, tc.want)
		}
	}
}

func TestEveryIsAnchored(t *testing.T) {
	anchor := mustTime(t, "2026-05-01T10:07:00Z")
	s := mustParse(t, "every 2h", ParseOptions{Now: anchor})
	cases := []struct{ after, want string }{
		{"2026-05-01T10:07:00Z", "2026-05-01T12:07:00Z"},
		{"2026-05-01T12:06:59Z", "2026-05-01T12:07:00Z"},
		{"2026-05-01T12:07:00Z", "2026-05-01T14:07:00Z"},
		{"2026-05-03T23:59:00Z", "2026-05-04T00:07:00Z"}, // after a long stop: on the grid, not now+2h
		{"2026-04-01T00:00:00Z", "2026-05-01T12:07:00Z"},
	}
	for _, tc := range cases {
		if got := s.Next(mustTime(t, tc.after)).Format(time.RFC3339); got != tc.want {
			t.Errorf("Next(%s) = %s, want %s", tc.after, got, tc.want)
		}
	}
	n, last := s.occurrences(mustTime(t, "2026-05-01T12:07:00Z"), mustTime(t, "2026-05-01T19:00:00Z"))
	if n != 4 || !last.Equal(mustTime(t, "2026-05-01T18:07:00Z")) {
		t.Errorf("occurrences = %d, last %s; want 4, 18:07", n, last)
	}
}

func TestActiveHours(t *testing.T) {
	mustZone(t, "Europe/Berlin")
	anchor := mustTime(t, "2026-06-01T00:00:00Z")
	s := Schedule{Kind: KindEvery, Every: 3 * time.Hour, Anchor: anchor, TZ: "Europe/Berlin", Hours: [2]int{8, 22}}
	want := []string{
		"2026-06-01T08:00:00+02:00", // 06:00Z
		"2026-06-01T11:00:00+02:00",
		"2026-06-01T14:00:00+02:00",
		"2026-06-01T17:00:00+02:00",
		"2026-06-01T20:00:00+02:00",
		"2026-06-02T08:00:00+02:00", // 23:00 and 02:00 and 05:00 are outside
	}
	if diff := cmp.Diff(want, chain(s, anchor, len(want))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	wrap := Schedule{Kind: KindEvery, Every: time.Hour, Anchor: anchor, Hours: [2]int{22, 2}}
	want = []string{"2026-06-01T01:00:00Z", "2026-06-01T22:00:00Z", "2026-06-01T23:00:00Z", "2026-06-02T00:00:00Z", "2026-06-02T01:00:00Z", "2026-06-02T22:00:00Z"}
	if diff := cmp.Diff(want, chain(wrap, anchor, len(want))); diff != "" {
		t.Errorf("wrapping range (-want +got):\n%s", diff)
	}
	never := Schedule{Kind: KindEvery, Every: 24 * time.Hour, Anchor: anchor.Add(3 * time.Hour), Hours: [2]int{8, 22}}
	if got := never.Next(anchor); !got.IsZero() {
		t.Errorf("a daily tick at 03:00 with hours 8-22 fired at %s, want never", got)
	}
}
