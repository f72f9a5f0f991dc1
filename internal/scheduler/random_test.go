package scheduler

import (
	"testing"
	"time"
)

func TestRandomSlots(t *testing.T) {
	anchor := mustTime(t, "2026-06-01T00:00:00Z")
	s := mustParse(t, "random 3 per 1d", ParseOptions{Now: anchor, Seed: "job-1"})
	perDay := map[string]int{}
	var all []time.Time
	for at := s.Next(anchor); at.Before(anchor.AddDate(0, 0, 30)); at = s.Next(at) {
		perDay[at.Format("2006-01-02")]++
		all = append(all, at)
	}
	if len(perDay) != 30 {
		t.Fatalf("%d days with runs, want 30", len(perDay))
	}
	for day, n := range perDay {
		if n != 3 {
			t.Errorf("%s: %d runs, want 3", day, n)
		}
	}
	for _, at := range all {
		off := at.Sub(anchor) % (24 * time.Hour) % (8 * time.Hour) // offset inside its 8h slot
		if off < 48*time.Minute || off > 8*time.Hour-48*time.Minute {
			t.Errorf("%s lies in its slot's 10%% padding (offset %s)", at, off)
		}
		if at.Nanosecond() != 0 {
			t.Errorf("%s is not on a whole second", at)
		}
	}

	// Reconstructed after a restart: asking from any point gives the same
	// instants as walking the chain.
	for i := 1; i < len(all); i++ {
		mid := all[i-1].Add(all[i].Sub(all[i-1]) / 2)
		if got := s.Next(mid); !got.Equal(all[i]) {
			t.Fatalf("Next(%s) = %s, want %s", mid, got, all[i])
		}
	}
	again := mustParse(t, "random 3 per 1d", ParseOptions{Now: anchor, Seed: "job-1"})
	if got := again.Next(all[40]); !got.Equal(all[41]) {
		t.Errorf("a re-parsed schedule gives %s, want %s", got, all[41])
	}
	other := mustParse(t, "random 3 per 1d", ParseOptions{Now: anchor, Seed: "job-2"})
	same := 0
	for i, at := range chain(other, anchor, 30) {
		if at == all[i].Format(time.RFC3339) {
			same++
		}
	}
	if same > 3 {
		t.Errorf("jobs with different ids share %d of 30 instants; slots should differ", same)
	}
}
