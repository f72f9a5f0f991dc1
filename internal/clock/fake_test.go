package clock

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Fake calls an AfterFunc's f on the goroutine that advances it: no
// synchronisation is needed to see what f did once Advance returns (the
// race detector would report ran otherwise).
func TestFakeAfterFuncRunsDuringAdvance(t *testing.T) {
	start := time.Unix(0, 0)
	f := NewFake(start)
	ran := false
	f.AfterFunc(time.Second, func() { ran = true })
	f.Advance(time.Second)
	if !ran {
		t.Fatal("f had not run when Advance returned")
	}
	if n := f.Waiters(); n != 0 {
		t.Fatalf("Waiters = %d after f ran", n)
	}
}

// f may use the clock: read it, re-arm its own timer, arm others.
func TestFakeAfterFuncMayUseTheClock(t *testing.T) {
	start := time.Unix(0, 0)
	f := NewFake(start)
	var ticks []time.Time
	var self Timer
	var other Timer
	self = f.AfterFunc(time.Hour, func() {
		ticks = append(ticks, f.Now())
		if len(ticks) < 3 {
			self.Reset(time.Hour)
		} else {
			other = f.NewTimer(30 * time.Minute)
		}
	})
	f.Advance(10 * time.Hour)
	want := []time.Time{start.Add(time.Hour), start.Add(2 * time.Hour), start.Add(3 * time.Hour)}
	if len(ticks) != len(want) {
		t.Fatalf("f ran at %v, want %v", ticks, want)
	}
	for i := range want {
		if !ticks[i].Equal(want[i]) {
			t.Fatalf("f ran at %v, want %v", ticks, want)
		}
	}
	// The timer f armed at 3h was due within the same Advance.
	mustReceive(t, other.C(), start.Add(3*time.Hour+30*time.Minute), "timer armed by f")
	if got := f.Now(); !got.Equal(start.Add(10 * time.Hour)) {
		t.Fatalf("Now = %v after the Advance", got)
	}
}

// An AfterFunc due at once waits for the next Advance: AfterFunc is
// often called with a lock f takes.
func TestFakeAfterFuncZeroWaitsForAdvance(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	var mu sync.Mutex
	ran := false
	mu.Lock()
	f.AfterFunc(0, func() {
		mu.Lock()
		defer mu.Unlock()
		ran = true
	})
	mu.Unlock()
	if f.Waiters() != 1 {
		t.Fatal("AfterFunc(0) is not pending")
	}
	f.Advance(0)
	if !ran {
		t.Fatal("Advance(0) did not run AfterFunc(0)")
	}
}

func TestFakeWaitersCountsTimersTickersAndFuncs(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	tm := f.NewTimer(time.Second)
	tk := f.NewTicker(time.Second)
	fn := f.AfterFunc(2*time.Second, func() {})
	if n := f.Waiters(); n != 3 {
		t.Fatalf("Waiters = %d, want 3", n)
	}
	f.Advance(time.Second) // the timer fired, the ticker re-armed
	if n := f.Waiters(); n != 2 {
		t.Fatalf("Waiters = %d after the timer fired, want 2", n)
	}
	tk.Stop()
	fn.Stop()
	if n := f.Waiters(); n != 0 {
		t.Fatalf("Waiters = %d after Stop, want 0", n)
	}

	done := make(chan struct{})
	defer close(done)
	got := make(chan bool, 1)
	go func() { got <- f.WaitForWaiters(1, done) }()
	tm.Reset(time.Second) // re-arming counts as arming
	if !<-got {
		t.Fatal("WaitForWaiters did not see the Reset")
	}
}

func TestFakeSetBackwardsFiresNothing(t *testing.T) {
	start := time.Unix(1000, 0)
	f := NewFake(start)
	ran := false
	f.AfterFunc(0, func() { ran = true })
	tm := f.NewTimer(time.Second)
	f.Set(start.Add(-time.Hour))
	if ran || !f.Now().Equal(start) {
		t.Fatalf("Set backwards: ran=%v now=%v", ran, f.Now())
	}
	mustBeEmpty(t, tm.C(), "timer after Set backwards")
}

// Timers, tickers and funcs armed, reset, stopped and read from many
// goroutines while others advance the clock (run with -race).
func TestFakeConcurrentUse(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	var fired atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					f.Advance(time.Millisecond)
				}
			}
		})
	}
	var users sync.WaitGroup
	for g := range 8 {
		users.Go(func() {
			for i := range 200 {
				d := time.Duration(i%5) * time.Millisecond
				tm := f.NewTimer(d)
				tk := f.NewTicker(time.Millisecond + d)
				fn := f.AfterFunc(d, func() { fired.Add(1) })
				_ = f.Now()
				if (g+i)%2 == 0 {
					tm.Reset(d + time.Millisecond)
					tk.Reset(2 * time.Millisecond)
					fn.Reset(d)
				}
				select {
				case <-tm.C():
				case <-tk.C():
				default:
				}
				tm.Stop()
				tk.Stop()
				fn.Stop()
				_ = f.Waiters()
			}
		})
	}
	users.Wait()
	close(stop)
	wg.Wait()
	if n := f.Waiters(); n != 0 {
		t.Fatalf("Waiters = %d after every timer was stopped", n)
	}
	t.Logf("%d AfterFuncs ran", fired.Load())
}
