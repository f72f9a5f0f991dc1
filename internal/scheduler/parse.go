package scheduler

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The forms ParseSchedule accepts, for error messages and the tool schema.
const scheduleForms = `"in 20m", "at 2026-12-01T09:00 [Europe/Berlin]", "every 2h", ` +
	`"cron 0 9 * * 1-5 [Europe/Berlin]" or "random 3 per 1d"`

// maxDuration bounds delays and intervals.
const maxDuration = 5 * 366 * 24 * time.Hour

// ParseOptions are the context a schedule is parsed in.
type ParseOptions struct {
	// Now is what "in" counts from and where every and random are anchored.
	Now time.Time
	// TimeZone is the IANA zone of at and cron when the spec names none
	// ("" is UTC).
	TimeZone string
	// Seed derives random slots (the job id).
	Seed string
}

// ScheduleError says why a schedule does not parse.
type ScheduleError struct {
	Spec   string
	Reason string
}

func (e *ScheduleError) Error() string { return fmt.Sprintf("schedule %q: %s", e.Spec, e.Reason) }

// ParseSchedule parses the schedule forms:
//
//	in 20m                          one-shot, a delay from now (s m h d w)
//	at 2026-12-01T09:00 [Zone]      one-shot, a wall-clock time in the zone
//	at 2026-12-01T09:00:00+01:00    one-shot, an absolute time
//	at 09:00 [Zone]                 one-shot, the next time the clock shows it
//	every 2h                        interval, anchored at now, in real time
//	cron 0 9 * * 1-5 [Zone]         cron (5 fields or @daily...), wall-clock
//	random 3 per 1d                 3 random instants in each day-long window
//
// A trailing IANA zone overrides opts.TimeZone.
func ParseSchedule(spec string, opts ParseOptions) (Schedule, error) {
	fields := strings.Fields(spec)
	fail := func(format string, args ...any) (Schedule, error) {
		return Schedule{}, &ScheduleError{Spec: spec, Reason: fmt.Sprintf(format, args...)}
	}
	if len(fields) == 0 {
		return fail("empty; want %s", scheduleForms)
	}
	fields, explicit := splitZone(fields)
	zone := explicit
	if zone == "" {
		zone = opts.TimeZone
	}
	loc, err := loadZone(zone)
	if err != nil {
		return fail("unknown time zone %q", zone)
	}
	s := Schedule{Spec: strings.Join(fields, " "), TZ: zoneName(zone), loc: loc}
	if explicit != "" {
		s.Spec += " " + explicit
	}
	word, rest := strings.ToLower(fields[0]), fields[1:]
	switch word {
	case "in", "every", "random":
		if explicit != "" {
			return fail("%q runs in real time; a time zone applies to at and cron", word)
		}
	case "at", "cron":
	default:
		if strings.HasPrefix(word, "@") || len(fields) == 5 {
			word, rest = "cron", fields
		}
	}
	var reason string
	switch word {
	case "in":
		reason = s.parseIn(rest, opts.Now)
	case "at":
		reason = s.parseAt(rest, opts.Now)
	case "every":
		reason = s.parseEvery(rest, opts.Now)
	case "cron":
		reason = s.parseCron(rest, opts.Now)
	case "random":
		s.Seed = opts.Seed
		reason = s.parseRandom(rest, opts.Now)
	default:
		reason = fmt.Sprintf("unknown form %q; want %s", fields[0], scheduleForms)
	}
	if reason != "" {
		return fail("%s", reason)
	}
	return s, nil
}

// splitZone takes a trailing IANA zone name off fields.
func splitZone(fields []string) ([]string, string) {
	if len(fields) < 2 {
		return fields, ""
	}
	last := fields[len(fields)-1]
	if !looksLikeZone(last) {
		return fields, ""
	}
	return fields[:len(fields)-1], last
}

func looksLikeZone(tok string) bool {
	if tok == "UTC" {
		return true
	}
	if tok == "" || tok[0] < 'A' || tok[0] > 'Z' || !strings.Contains(tok, "/") {
		return false
	}
	for _, c := range tok {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/_+-", c)) {
			return false
		}
	}
	return true
}

func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	return time.LoadLocation(name)
}

func zoneName(name string) string {
	if name == "UTC" {
		return ""
	}
	return name
}

func (s *Schedule) parseIn(rest []string, now time.Time) string {
	d, err := parseDuration(strings.Join(rest, ""))
	switch {
	case err != nil:
		return err.Error()
	case d <= 0:
		return "delay must be positive"
	}
	s.Kind, s.At, s.TZ = KindOnce, now.Add(d), ""
	return ""
}

func (s *Schedule) parseEvery(rest []string, now time.Time) string {
	d, err := parseDuration(strings.Join(rest, ""))
	switch {
	case err != nil:
		return err.Error()
	case d <= 0:
		return "interval must be positive"
	case d < time.Second:
		return "interval must be at least 1s"
	}
	s.Kind, s.Every, s.Anchor, s.TZ = KindEvery, d, now, ""
	return ""
}

func (s *Schedule) parseCron(rest []string, now time.Time) string {
	expr := strings.Join(rest, " ")
	if expr == "" {
		return "missing cron expression"
	}
	if why := checkCron(expr); why != "" {
		return why
	}
	s.Kind, s.Cron = KindCron, expr
	if s.Next(now).IsZero() {
		return "the cron expression never fires"
	}
	return ""
}

func (s *Schedule) parseRandom(rest []string, now time.Time) string {
	const form = `want "random N per DURATION", e.g. "random 3 per 1d"`
	if len(rest) < 3 || strings.ToLower(rest[1]) != "per" {
		return form
	}
	n, err := strconv.Atoi(rest[0])
	if err != nil || n < 1 {
		return "the count must be a positive whole number; " + form
	}
	d, err := parseDuration(strings.Join(rest[2:], ""))
	if err != nil {
		return err.Error()
	}
	if d <= 0 {
		return "window must be positive"
	}
	if d/time.Duration(n) < time.Minute {
		return fmt.Sprintf("%d random times per %s leave less than a minute each", n, d)
	}
	s.Kind, s.Count, s.Every, s.Anchor, s.TZ = KindRandom, n, d, now, ""
	return ""
}

// durationUnits are the units parseDuration accepts.
var durationUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// parseDuration reads "20m", "1h30m", "2d", "1w" or a bare unit ("day").
func parseDuration(s string) (time.Duration, error) {
	in := s
	s = strings.ToLower(s)
	if s == "" {
		return 0, fmt.Errorf("missing duration (like 30s, 20m, 2h, 1d, 1w)")
	}
	if u, ok := durationUnits[s]; ok {
		return u, nil
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		j := i
		for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
			j++
		}
		unit, ok := durationUnits[s[i:j]]
		if i == 0 || i > 12 || !ok {
			return 0, fmt.Errorf("bad duration %q (want a number and a unit s, m, h, d or w, like 20m or 1h30m)", in)
		}
		n, _ := strconv.ParseInt(s[:i], 10, 64)
		if n > int64(maxDuration/unit) || total+time.Duration(n)*unit > maxDuration {
			return 0, fmt.Errorf("duration %q is too long (at most 5 years)", in)
		}
		total += time.Duration(n) * unit
		s = s[j:]
	}
	return total, nil
}
