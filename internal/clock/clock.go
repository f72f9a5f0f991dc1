package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock is a source of time. Implementations are safe for concurrent use.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
}

// System is the real clock.
var System Clock = system{}

type system struct{}

func (system) Now() time.Time                         { return time.Now() }
func (system) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Or returns c, or System when c is nil (for Options defaults).
func Or(c Clock) Clock {
	if c == nil {
		return System
	}
	return c
}

// Fake is a Clock that moves only when told to. Channels from After fire
// when Advance or Set passes their deadline (in deadline order); an After
// of zero or less fires at once.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	added   chan struct{} // closed and replaced each time After registers a waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

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

// After registers a waiter that fires once the fake reaches now+d.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- f.now
		return ch
	}
	f.waiters = append(f.waiters, waiter{at: f.now.Add(d), ch: ch})
	close(f.added)
	f.added = make(chan struct{})
	return ch
}

// Advance moves the fake forward by d, firing every waiter due by then.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	t := f.now.Add(d)
	f.mu.Unlock()
	f.Set(t)
}

// Set moves the fake to t (never backwards), firing every waiter due by
// then in deadline order, each with its own deadline as the time read.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.Before(f.now) {
		return
	}
	sort.SliceStable(f.waiters, func(i, j int) bool { return f.waiters[i].at.Before(f.waiters[j].at) })
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if w.at.After(t) {
			kept = append(kept, w)
			continue
		}
		w.ch <- w.at
	}
	clear(f.waiters[len(kept):])
	f.waiters = kept
	f.now = t
}

// Waiters is how many After channels have not fired yet.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// WaitForWaiters blocks until at least n After channels are pending or
// done is closed, and reports whether n were reached. Tests use it to
// know that the code under test is parked on the clock before advancing.
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
