package mcp

import (
	"time"

	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

// budget is the restart intensity of one server (supervise.Window, the
// rule every service follows) plus its backoff: for each new failure it
// answers how long to wait before the next attempt, or that the server
// has used up its restarts. It is plain data driven by the caller's
// clock, so tests are deterministic.
type budget struct {
	policy RestartPolicy
	window supervise.Window
	streak int // consecutive failures since the last healthy connection
}

func newBudget(p RestartPolicy) budget {
	return budget{policy: p, window: supervise.NewWindow(supervise.Budget{Max: p.MaxRestarts, Window: p.Window})}
}

// fail records a failure at now. exhausted is true when more than
// MaxRestarts failures fall within Window; otherwise delay is the backoff
// before the next attempt.
func (b *budget) fail(now time.Time) (delay time.Duration, exhausted bool) {
	b.streak++
	if b.window.Fail(now) {
		return 0, true
	}
	return backoff(b.policy, b.streak), false
}

// healthy resets the backoff streak after a connection reached ready; the
// failure window still counts earlier failures.
func (b *budget) healthy() { b.streak = 0 }

// backoff is base * 2^(n-1), capped at max.
func backoff(p RestartPolicy, n int) time.Duration {
	d := p.BackoffBase
	for i := 1; i < n; i++ {
		d *= 2
		if d >= p.BackoffMax {
			return p.BackoffMax
		}
	}
	return min(d, p.BackoffMax)
}
