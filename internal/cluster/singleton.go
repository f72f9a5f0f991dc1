package cluster

import (
	"context"
	"errors"
	"time"
)

// SingletonLeasePrefix begins the lease name of every singleton.
const SingletonLeasePrefix = "singleton."

// Singleton returns a service that runs run on exactly one node of the
// cluster at a time: the holder of the lease "singleton.<name>". Each
// node tries to take the lease every third of a lease; while it holds it,
// run runs there, and when the lease is lost (the node was paused or cut
// off past it) run's context ends at once. When the holder dies, another
// node takes over within about a lease.
func (n *Node) Singleton(name string, run func(ctx context.Context) error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		tick := n.cfg.LeaseTTL / 3
		for {
			ls, lease := n.trySingleton(ctx, name)
			if lease != nil {
				if err := n.runHeld(ctx, name, ls, lease, run); err != nil || ctx.Err() != nil {
					return err
				}
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(tick):
			}
		}
	}
}

// trySingleton takes name's lease, or returns none (held elsewhere, or no
// quorum yet).
func (n *Node) trySingleton(ctx context.Context, name string) (*Leases, *Lease) {
	c, cancel := context.WithTimeout(ctx, n.cfg.LeaseTTL)
	defer cancel()
	ls, err := n.Leases(c)
	if err != nil {
		return nil, nil
	}
	lease, err := ls.Acquire(c, SingletonLeasePrefix+name)
	if err != nil {
		return nil, nil
	}
	return ls, lease
}

// runHeld runs run while this node holds lease; it returns run's error,
// or nil when the lease was lost or ctx ended (the lease given up then).
func (n *Node) runHeld(ctx context.Context, name string, ls *Leases, lease *Lease, run func(context.Context) error) error {
	n.single.set(name, true)
	defer n.single.set(name, false)
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(rctx) }()
	t := time.NewTicker(n.cfg.LeaseTTL / 3)
	defer t.Stop()
	renewed := time.Now()
	for {
		select {
		case err := <-done:
			stop()
			n.release(ls, lease)
			return err
		case <-ctx.Done():
			stop()
			<-done
			n.release(ls, lease)
			return nil
		case <-t.C:
			// A renewal may not outlast the lease's stale mark: past it
			// this node stops, whatever the renewal would have said.
			left := time.Until(renewed.Add(Stale(n.cfg.LeaseTTL)))
			err := context.DeadlineExceeded
			if left > 0 {
				c, cancel := context.WithTimeout(ctx, min(n.cfg.LeaseTTL/3, left))
				err = ls.Renew(c, lease)
				cancel()
			}
			if err == nil {
				renewed = time.Now()
				continue
			}
			if errors.Is(err, ErrLost) || time.Since(renewed) >= Stale(n.cfg.LeaseTTL) {
				n.log.Warn("singleton moved away: its lease was lost", "singleton", name, "err", err)
				stop()
				<-done
				return nil
			}
		}
	}
}

func (n *Node) release(ls *Leases, lease *Lease) {
	c, cancel := context.WithTimeout(context.Background(), n.cfg.LeaseTTL)
	defer cancel()
	_ = ls.Release(c, lease)
}

// Stale is how long after its last renewal a holder stops acting on a
// lease it cannot renew: two thirds of it, so that it has stopped before
// the server lets the lease go to another node (which is at least a
// whole lease after the last renewal it stored).
func Stale(ttl time.Duration) time.Duration { return ttl * 2 / 3 }
