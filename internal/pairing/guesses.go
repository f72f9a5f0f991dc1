package pairing

import (
	"sync"
	"time"
)

// Guesses counts the wrong codes typed within Window, from anyone: Max of
// them close the door until the oldest ages out, so that a code of
// CodeLen characters cannot be guessed in a lifetime. Safe for concurrent
// use; the zero value needs Max and Window set.
type Guesses struct {
	Max    int
	Window time.Duration

	mu    sync.Mutex
	wrong []time.Time // within the last Window, oldest first
}

// LockedOut reports whether Max wrong codes came within Window of now.
func (g *Guesses) LockedOut(now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forget(now)
	return len(g.wrong) >= g.Max
}

// Wrong counts a wrong code typed at now.
func (g *Guesses) Wrong(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forget(now)
	if len(g.wrong) < g.Max {
		g.wrong = append(g.wrong, now)
	}
}

// forget drops the guesses older than Window (g.mu held).
func (g *Guesses) forget(now time.Time) {
	i := 0
	for i < len(g.wrong) && now.Sub(g.wrong[i]) >= g.Window {
		i++
	}
	g.wrong = g.wrong[i:]
}
