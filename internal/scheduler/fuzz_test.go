package scheduler

import (
	"testing"
	"time"
)

// FuzzParseSchedule: no input panics; an accepted schedule fires in the
// future or never, in order, and its Spec parses back to the same instants.
// Seeds are in testdata/fuzz/FuzzParseSchedule.
func FuzzParseSchedule(f *testing.F) {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSchedule(spec, ParseOptions{Now: now, TimeZone: "Europe/Berlin", Seed: "fuzz"})
		if err != nil {
			if _, ok := err.(*ScheduleError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		first := s.Next(now)
		if !first.IsZero() && !first.After(now) {
			t.Fatalf("%q: next %s is not after now", spec, first)
		}
		second := s.Next(first)
		if !first.IsZero() && !second.IsZero() && !second.After(first) {
			t.Fatalf("%q: %s then %s", spec, first, second)
		}
		again, err := ParseSchedule(s.Spec, ParseOptions{Now: now, TimeZone: "Europe/Berlin", Seed: "fuzz"})
		if err != nil {
			t.Fatalf("%q parsed, its Spec %q does not: %v", spec, s.Spec, err)
		}
		if got := again.Next(now); !got.Equal(first) {
			t.Fatalf("%q: Spec %q fires at %s, the original at %s", spec, s.Spec, got, first)
		}
	})
}
