package clock

import "time"

// Clock is a source of time and of the timers that wait on it.
// Implementations are safe for concurrent use.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// After returns a channel that receives the time once d has passed
	// (NewTimer(d).C(), for a wait that is never stopped).
	After(d time.Duration) <-chan time.Time
	// NewTimer returns a timer that sends the time on its channel once d
	// has passed (at once when d <= 0).
	NewTimer(d time.Duration) Timer
	// NewTicker returns a ticker that sends the time on its channel every
	// d; d must be positive. A tick the receiver is not ready for is
	// dropped, as time.Ticker drops ticks for slow receivers.
	NewTicker(d time.Duration) Ticker
	// AfterFunc calls f once d has passed. Its timer has no channel.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a single event, a *time.Timer for System. Stop and Reset have
// time.Timer's semantics as of Go 1.23: once either returns, no value
// from before the call is received from C.
type Timer interface {
	// C is the channel the time is sent on; nil for AfterFunc's timers.
	C() <-chan time.Time
	// Stop keeps the timer from firing. It reports whether it did so:
	// false when the timer had already been stopped, or had fired and its
	// value was received (or its function called).
	Stop() bool
	// Reset stops the timer (reporting as Stop does) and arms it to fire
	// d from now.
	Reset(d time.Duration) bool
}

// Ticker sends the time at a fixed period, a *time.Ticker for System.
type Ticker interface {
	// C is the channel the ticks are sent on.
	C() <-chan time.Time
	// Stop turns the ticker off; no tick is received after it returns.
	Stop()
	// Reset stops the ticker and restarts it with period d (positive): the
	// next tick comes d from now. It also restarts a stopped ticker.
	Reset(d time.Duration)
}

// System is the real clock.
var System Clock = system{}

type system struct{}

func (system) Now() time.Time                         { return time.Now() }
func (system) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (system) NewTimer(d time.Duration) Timer         { return systemTimer{time.NewTimer(d)} }
func (system) NewTicker(d time.Duration) Ticker       { return systemTicker{time.NewTicker(d)} }
func (system) AfterFunc(d time.Duration, f func()) Timer {
	return systemTimer{time.AfterFunc(d, f)}
}

type systemTimer struct{ t *time.Timer }

func (s systemTimer) C() <-chan time.Time        { return s.t.C }
func (s systemTimer) Stop() bool                 { return s.t.Stop() }
func (s systemTimer) Reset(d time.Duration) bool { return s.t.Reset(d) }

type systemTicker struct{ t *time.Ticker }

func (s systemTicker) C() <-chan time.Time   { return s.t.C }
func (s systemTicker) Stop()                 { s.t.Stop() }
func (s systemTicker) Reset(d time.Duration) { s.t.Reset(d) }

// Or returns c, or System when c is nil (for Options defaults).
func Or(c Clock) Clock {
	if c == nil {
		return System
	}
	return c
}
