package mcp

import "time"

// budget is the restart intensity of one server: it remembers failure
// times and answers, for each new failure, how long to wait before the
// next attempt or that the server has used up its restarts. It is plain
// data driven by the caller's clock, so tests are deterministic.
type budget struct {
	policy   RestartPolicy
	failures []time.Time // within the window, oldest first
	streak   int         // consecutive failures since the last healthy connection
}

// fail records a failure at now. exhausted is true when more than
// MaxRestarts failures fall within Window; otherwise delay is the backoff
// before the next attempt.
func (b *budget) fail(now time.Time) (delay time.Duration, exhausted bool) {
	cutoff := now.Add(-b.policy.Window)
	kept := b.failures[:0]
	for _, t := range b.failures {
		if t.After(cutoff) {
			kept = append(kept, t)
		}
	}
	b.failures = append(kept, now)
	b.streak++
	if len(b.failures) > b.policy.MaxRestarts {
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
