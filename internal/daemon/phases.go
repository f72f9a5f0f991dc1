package daemon

import (
	"context"
	"log/slog"
	"math"
	"time"
)

// stopwatch logs how long each start-up phase took, one debug line a
// phase ("start-up phase", phase=NAME, ms=N): where a slow start spends
// its time. A process measurement, so it reads time, not a clock.Clock.
type stopwatch struct {
	log         *slog.Logger
	first, last time.Time
}

func newStopwatch(start time.Time) *stopwatch { return &stopwatch{first: start, last: start} }

// lap logs the phase that ends now (a nil logger, before the log is open,
// logs nothing but still ends the phase).
func (s *stopwatch) lap(phase string) {
	if s == nil {
		return
	}
	now := time.Now()
	s.emit(phase, now.Sub(s.last))
	s.last = now
}

// total logs the whole start, from Run's first line to now.
func (s *stopwatch) total() {
	if s != nil {
		s.emit("total", time.Since(s.first))
	}
}

func (s *stopwatch) emit(phase string, d time.Duration) {
	if s.log == nil {
		return
	}
	s.log.LogAttrs(context.Background(), slog.LevelDebug, "start-up phase",
		slog.String("phase", phase), slog.Float64("ms", math.Round(float64(d)/float64(time.Millisecond)*10)/10))
}
