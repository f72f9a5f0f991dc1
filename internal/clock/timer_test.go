package clock

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The timer tests run twice: on System inside a synctest bubble (the time
// package's own timers, on the bubble's fake time) and on Fake. Passing
// both is what "Fake behaves as the time package" means.

// rig is a clock under test and the way to move it.
type rig struct {
	clk   Clock
	start time.Time
	// advance moves the clock by d and returns once everything due has
	// fired (and every AfterFunc due has returned).
	advance func(d time.Duration)
}

func (r rig) at(d time.Duration) time.Time { return r.start.Add(d) }

// bothClocks runs body against System (in a synctest bubble) and Fake.
func bothClocks(t *testing.T, body func(t *testing.T, r rig)) {
	t.Helper()
	t.Run("system", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			body(t, rig{clk: System, start: time.Now(), advance: func(d time.Duration) {
				time.Sleep(d)
				synctest.Wait()
			}})
		})
	})
	t.Run("fake", func(t *testing.T) {
		f := NewFake(time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC))
		body(t, rig{clk: f, start: f.Now(), advance: f.Advance})
	})
}

// received is the value waiting on ch, if any.
func received(ch <-chan time.Time) (time.Time, bool) {
	select {
	case v := <-ch:
		return v, true
	default:
		return time.Time{}, false
	}
}

// mustReceive fails unless ch holds want.
func mustReceive(t *testing.T, ch <-chan time.Time, want time.Time, what string) {
	t.Helper()
	got, ok := received(ch)
	if !ok {
		t.Fatalf("%s: nothing received, want %v", what, want)
	}
	if !got.Equal(want) {
		t.Fatalf("%s: received %v, want %v", what, got, want)
	}
}

// mustBeEmpty fails if ch holds a value.
func mustBeEmpty(t *testing.T, ch <-chan time.Time, what string) {
	t.Helper()
	if got, ok := received(ch); ok {
		t.Fatalf("%s: received %v, want nothing", what, got)
	}
}

func TestTimerFiresAtItsDeadline(t *testing.T) {
	bothClocks(t, func(t *testing.T, r rig) {
		tm := r.clk.NewTimer(time.Hour)
		r.advance(time.Hour - time.Nanosecond)
		mustBeEmpty(t, tm.C(), "before the deadline")
		r.advance(time.Nanosecond)
		mustReceive(t, tm.C(), r.at(time.Hour), "at the deadline")
		r.advance(time.Hour)
		mustBeEmpty(t, tm.C(), "a timer fires once")

		now := r.clk.NewTimer(0)
		r.advance(0)
		mustReceive(t, now.C(), r.at(2*time.Hour), "NewTimer(0)")
		mustReceive(t, r.clk.After(-time.Second), r.at(2*time.Hour), "After(<0)")
	})
}

func TestTimerStop(t *testing.T) {
	bothClocks(t, func(t *testing.T, r rig) {
		tm := r.clk.NewTimer(time.Hour)
		if !tm.Stop() {
			t.Fatal("Stop of an armed timer = false")
		}
		if tm.Stop() {
			t.Fatal("second Stop = true")
		}
		r.advance(2 * time.Hour)
		mustBeEmpty(t, tm.C(), "stopped timer")

		unread := r.clk.NewTimer(time.Hour)
		r.advance(time.Hour)
		if !unread.Stop() {
			t.Fatal("Stop after fire, value unread = false")
		}
		mustBeEmpty(t, unread.C(), "the value a Stop found unread")

		read := r.clk.NewTimer(time.Hour)
		r.advance(time.Hour)
		mustReceive(t, read.C(), r.at(4*time.Hour), "fired")
		if read.Stop() {
			t.Fatal("Stop after fire, value read = true")
		}
	})
}

func TestTimerReset(t *testing.T) {
	bothClocks(t, func(t *testing.T, r rig) {
		tm := r.clk.NewTimer(time.Hour)
		r.advance(30 * time.Minute)
		if !tm.Reset(time.Hour) {
			t.Fatal("Reset of an armed timer = false")
		}
		r.advance(30 * time.Minute)
		mustBeEmpty(t, tm.C(), "at the old deadline")
		r.advance(30 * time.Minute)
		mustReceive(t, tm.C(), r.at(90*time.Minute), "at the new deadline")

		if tm.Reset(time.Hour) {
			t.Fatal("Reset after the value was read = true")
		}
		r.advance(time.Hour)
		// Fired and unread: Reset drops the stale value.
		if !tm.Reset(time.Hour) {
			t.Fatal("Reset after fire, value unread = false")
		}
		mustBeEmpty(t, tm.C(), "the value Reset found unread")
		r.advance(time.Hour)
		mustReceive(t, tm.C(), r.at(210*time.Minute), "after the second Reset")

		tm.Stop()
		if tm.Reset(0) {
			t.Fatal("Reset of a stopped timer = true")
		}
		r.advance(0)
		mustReceive(t, tm.C(), r.at(210*time.Minute), "Reset(0)")
	})
}

func TestTickerAcrossPeriods(t *testing.T) {
	bothClocks(t, func(t *testing.T, r rig) {
		const p = time.Minute
		tk := r.clk.NewTicker(p)
		defer tk.Stop()
		r.advance(p)
		mustReceive(t, tk.C(), r.at(p), "first tick")
		mustBeEmpty(t, tk.C(), "one tick per period")

		// Nobody reads during 3.5 periods: the first missed tick is kept,
		// the others are dropped, and the ticker stays on its phase.
		r.advance(3*p + p/2)
		mustReceive(t, tk.C(), r.at(2*p), "first missed tick")
		mustBeEmpty(t, tk.C(), "the dropped ticks")
		r.advance(p / 2)
		mustReceive(t, tk.C(), r.at(5*p), "back on its phase")

		for i := range 3 {
			r.advance(p)
			mustReceive(t, tk.C(), r.at(time.Duration(6+i)*p), "tick read each period")
		}
	})
}

func TestTickerStopAndReset(t *testing.T) {
	bothClocks(t, func(t *testing.T, r rig) {
		const p = time.Minute
		tk := r.clk.NewTicker(p)
		r.advance(p)
		tk.Stop()
		mustBeEmpty(t, tk.C(), "a tick unread at Stop")
		r.advance(5 * p)
		mustBeEmpty(t, tk.C(), "a stopped ticker")

		tk.Reset(2 * p) // restarts a stopped ticker
		r.advance(p)
		mustBeEmpty(t, tk.C(), "before the new period")
		r.advance(p)
		mustReceive(t, tk.C(), r.at(8*p), "after Reset")

		r.advance(p)
		tk.Reset(3 * p) // from now, not from the last tick
		r.advance(2 * p)
		mustBeEmpty(t, tk.C(), "at the old period")
		r.advance(p)
		mustReceive(t, tk.C(), r.at(12*p), "at the new period")
		r.advance(3 * p)
		tk.Reset(p) // drops the unread tick
		mustBeEmpty(t, tk.C(), "a tick unread at Reset")
		tk.Stop()
	})
}

func TestAfterFunc(t *testing.T) {
	bothClocks(t, func(t *testing.T, r rig) {
		var mu sync.Mutex
		var ran []time.Time
		record := func() {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, r.clk.Now())
		}
		runs := func() []time.Time {
			mu.Lock()
			defer mu.Unlock()
			return append([]time.Time(nil), ran...)
		}

		tm := r.clk.AfterFunc(time.Hour, record)
		if tm.C() != nil {
			t.Fatal("an AfterFunc timer has a channel")
		}
		r.advance(time.Hour - time.Nanosecond)
		if n := len(runs()); n != 0 {
			t.Fatalf("ran %d times before its deadline", n)
		}
		r.advance(time.Nanosecond)
		if got := runs(); len(got) != 1 || !got[0].Equal(r.at(time.Hour)) {
			t.Fatalf("runs = %v, want one at %v", got, r.at(time.Hour))
		}
		if tm.Stop() {
			t.Fatal("Stop after f ran = true")
		}
		if tm.Reset(time.Hour) {
			t.Fatal("Reset after f ran = true")
		}
		r.advance(time.Hour)
		if got := runs(); len(got) != 2 || !got[1].Equal(r.at(2*time.Hour)) {
			t.Fatalf("runs = %v, want a second at %v", got, r.at(2*time.Hour))
		}

		stopped := r.clk.AfterFunc(time.Hour, record)
		if !stopped.Stop() {
			t.Fatal("Stop of an armed AfterFunc = false")
		}
		r.advance(2 * time.Hour)
		if n := len(runs()); n != 2 {
			t.Fatalf("a stopped AfterFunc ran (%d runs)", n)
		}

		r.clk.AfterFunc(0, record)
		r.advance(0)
		if got := runs(); len(got) != 3 || !got[2].Equal(r.at(4*time.Hour)) {
			t.Fatalf("runs = %v, want AfterFunc(0) at %v", got, r.at(4*time.Hour))
		}
	})
}

func TestEverythingFiresInDeadlineOrder(t *testing.T) {
	bothClocks(t, func(t *testing.T, r rig) {
		var mu sync.Mutex
		var order []string
		note := func(what string) func() {
			return func() {
				mu.Lock()
				defer mu.Unlock()
				order = append(order, what)
			}
		}
		// Each func checks the timer and ticker due before it fired first.
		tm := r.clk.NewTimer(2 * time.Hour)
		tk := r.clk.NewTicker(90 * time.Minute)
		defer tk.Stop()
		seen := func(ch <-chan time.Time, what string) func() {
			return func() {
				if _, ok := received(ch); ok {
					note(what)()
				}
			}
		}
		r.clk.AfterFunc(3*time.Hour, note("3h"))
		r.clk.AfterFunc(time.Hour, note("1h"))
		r.clk.AfterFunc(100*time.Minute, seen(tk.C(), "tick 1h30"))
		r.clk.AfterFunc(150*time.Minute, seen(tm.C(), "timer 2h"))
		r.advance(4 * time.Hour)
		want := []string{"1h", "tick 1h30", "timer 2h", "3h"}
		mu.Lock()
		defer mu.Unlock()
		if len(order) != len(want) {
			t.Fatalf("order = %v, want %v", order, want)
		}
		for i := range want {
			if order[i] != want[i] {
				t.Fatalf("order = %v, want %v", order, want)
			}
		}
	})
}

func TestNonPositiveTickerPanics(t *testing.T) {
	bothClocks(t, func(t *testing.T, r rig) {
		mustPanic(t, "NewTicker(0)", func() { r.clk.NewTicker(0) })
		tk := r.clk.NewTicker(time.Second)
		defer tk.Stop()
		mustPanic(t, "Reset(-1)", func() { tk.Reset(-1) })
	})
}

func mustPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	fn()
}
