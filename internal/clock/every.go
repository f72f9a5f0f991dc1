package clock

import (
	"context"
	"time"
)

// Every calls do every d of c (positive) until ctx ends or do fails, the
// loop of a service that does a chore on a period (pruning). It returns
// do's error, or ctx's.
func Every(ctx context.Context, c Clock, d time.Duration, do func(context.Context) error) error {
	t := c.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C():
			if err := do(ctx); err != nil {
				return err
			}
		}
	}
}
