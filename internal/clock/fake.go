package clock

import (
	"slices"
	"sync"
	"time"
)

// Fake is a Clock that moves only when told to. Its timers, tickers and
// AfterFuncs fire when Advance or Set passes their deadline, in deadline
// order (ties in the order they were armed); the clock reads the new time
// once Set returns, and an AfterFunc's deadline while its f runs:
//
//   - A timer (NewTimer, After) sends its deadline on its channel; one of
//     zero or less fires at once.
//   - A ticker sends its deadline and re-arms one period later. One
//     Advance or Set that passes several of its deadlines sends only the
//     first (no receiver can take a tick in between, and time's tickers
//     drop ticks a receiver is not ready for); it re-arms at its first
//     deadline after the new time.
//   - An AfterFunc's f is called synchronously, on the goroutine calling
//     Advance or Set, without the fake's lock held: when Advance returns,
//     every f due has returned, and f may use the clock (read Now, reset
//     its own timer, arm others). f must not wait for the Advance that
//     runs it to return. One armed with d <= 0 runs on the next Advance
//     or Set (Advance(0) will do), never inside AfterFunc, which may be
//     called with a lock f takes.
//
// Stop and Reset behave as time's (see Timer and Ticker).
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*fakeTimer  // armed timers, tickers and funcs, in no order
	seq     uint64        // arming order, for ties
	added   chan struct{} // closed and replaced each time a waiter is armed
}

// fakeTimer is one of a Fake's timers, tickers or AfterFuncs. Its fields
// other than f, ch, fn and ticker are guarded by the fake's mu.
type fakeTimer struct {
	f      *Fake
	ch     chan time.Time // buffered (1); nil for an AfterFunc
	fn     func()         // an AfterFunc's function
	ticker bool
	period time.Duration // a ticker's
	at     time.Time     // the deadline, while armed
	seq    uint64
	armed  bool
}

var (
	_ Clock  = (*Fake)(nil)
	_ Timer  = (*fakeTimer)(nil)
	_ Ticker = fakeTicker{}
)

// NewFake returns a Fake reading start.
func NewFake(start time.Time) *Fake {
	return &Fake{now: start, added: make(chan struct{})}
}

// Now is the fake's current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns the channel of a timer that fires once the fake reaches
// now+d.
func (f *Fake) After(d time.Duration) <-chan time.Time { return f.NewTimer(d).C() }

// NewTimer returns a timer that fires once the fake reaches now+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{f: f, ch: make(chan time.Time, 1)}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.arm(t, d)
	return t
}

// NewTicker returns a ticker that fires every d of fake time. It panics
// when d is not positive, as time.NewTicker does.
func (f *Fake) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	t := &fakeTimer{f: f, ch: make(chan time.Time, 1), ticker: true, period: d}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.arm(t, d)
	return fakeTicker{t}
}

// AfterFunc arms fn to be called by the Advance or Set that reaches
// now+d (see Fake).
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	t := &fakeTimer{f: f, fn: fn}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.arm(t, d)
	return t
}

// arm schedules t to fire d from now. f.mu is held and t is disarmed
// with its channel empty.
func (f *Fake) arm(t *fakeTimer, d time.Duration) {
	if d <= 0 && t.ch != nil && !t.ticker {
		t.ch <- f.now
		return
	}
	t.at, t.armed = f.now.Add(max(d, 0)), true
	f.seq++
	t.seq = f.seq
	f.waiters = append(f.waiters, t)
	close(f.added)
	f.added = make(chan struct{})
}

// disarm takes t out of the waiters and drains its channel, reporting
// whether it was pending (armed, or fired with its value unread). f.mu
// is held.
func (f *Fake) disarm(t *fakeTimer) bool {
	pending := t.armed
	if t.armed {
		t.armed = false
		f.waiters = slices.DeleteFunc(f.waiters, func(w *fakeTimer) bool { return w == t })
	}
	if t.ch != nil {
		select {
		case <-t.ch:
			pending = true
		default:
		}
	}
	return pending
}

// Advance moves the fake forward by d, firing everything due by then.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	t := f.now.Add(d)
	f.mu.Unlock()
	f.Set(t)
}

// Set moves the fake to t (never backwards), firing everything due by
// then in deadline order (see Fake).
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		w := f.due(t)
		if w == nil {
			if t.After(f.now) {
				f.now = t
			}
			return
		}
		if fn := f.fire(w, t); fn != nil {
			if w.at.After(f.now) {
				f.now = w.at
			}
			f.mu.Unlock()
			fn()
			f.mu.Lock()
		}
	}
}

// due is the first waiter to fire by t, or nil. f.mu is held.
func (f *Fake) due(t time.Time) *fakeTimer {
	var first *fakeTimer
	for _, w := range f.waiters {
		if w.at.After(t) {
			continue
		}
		if first == nil || w.at.Before(first.at) || (w.at.Equal(first.at) && w.seq < first.seq) {
			first = w
		}
	}
	return first
}

// fire delivers w's deadline and returns an AfterFunc's function for Set
// to call once the lock is released. until is the time Set moves to.
// f.mu is held.
func (f *Fake) fire(w *fakeTimer, until time.Time) func() {
	if !w.ticker {
		f.disarm(w)
		if w.ch == nil {
			return w.fn
		}
		w.ch <- w.at // disarm left it empty, and only fire sends
		return nil
	}
	select {
	case w.ch <- w.at:
	default: // the last tick is unread: this one is dropped
	}
	// The next deadline after until: the ones in between are dropped.
	w.at = w.at.Add((until.Sub(w.at)/w.period + 1) * w.period)
	f.seq++
	w.seq = f.seq
	return nil
}

// Waiters is how many timers, tickers and AfterFuncs are armed (After
// channels that have not fired included).
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// WaitForWaiters blocks until at least n timers, tickers or AfterFuncs
// are armed or done is closed, and reports whether n were reached. Tests
// use it to know that the code under test is parked on the clock before
// advancing.
func (f *Fake) WaitForWaiters(n int, done <-chan struct{}) bool {
	for {
		f.mu.Lock()
		if len(f.waiters) >= n {
			f.mu.Unlock()
			return true
		}
		added := f.added
		f.mu.Unlock()
		select {
		case <-added:
		case <-done:
			return false
		}
	}
}

// C is the timer's channel (nil for an AfterFunc).
func (t *fakeTimer) C() <-chan time.Time { return t.ch }

// Stop disarms the timer; see Timer.
func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	return t.f.disarm(t)
}

// Reset re-arms the timer d from now; see Timer.
func (t *fakeTimer) Reset(d time.Duration) bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	pending := t.f.disarm(t)
	t.f.arm(t, d)
	return pending
}

// fakeTicker is a ticker's face of a fakeTimer.
type fakeTicker struct{ t *fakeTimer }

func (k fakeTicker) C() <-chan time.Time { return k.t.ch }

// Stop turns the ticker off and drops an unread tick.
func (k fakeTicker) Stop() {
	k.t.f.mu.Lock()
	defer k.t.f.mu.Unlock()
	k.t.f.disarm(k.t)
}

// Reset restarts the ticker with period d; it panics when d is not
// positive, as time.Ticker.Reset does.
func (k fakeTicker) Reset(d time.Duration) {
	if d <= 0 {
		panic("clock: non-positive interval for Ticker.Reset")
	}
	k.t.f.mu.Lock()
	defer k.t.f.mu.Unlock()
	k.t.f.disarm(k.t)
	k.t.period = d
	k.t.f.arm(k.t, d)
}
