package session

import (
	"slices"
	"sync"
	"time"
)

// summaryCache keeps the summaries of a backend's stored sessions in
// memory once they were first listed, so that listing 10,000 sessions
// (the console, /api/v1/sessions) reads only what changed since the last
// list instead of every record and title. Every write of the backend
// marks the sessions it touched, after it returned; a list reads those
// again. A write racing a list is seen by the next list.
type summaryCache struct {
	backend
	// refresh is held by a list for its whole take-read-merge, so that
	// two lists cannot merge what they read in the wrong order.
	refresh  sync.Mutex
	mu       sync.Mutex         // the fields below
	sums     map[string]Summary // nil until the first list
	building bool               // the first list is scanning: writes are marked
	dirty    map[string]struct{}
	// sorted is sums in the list's order (byRecency), nil when a list
	// changed sums since: the next list sorts again, and the lists between
	// sort what is already in order, which costs a pass.
	sorted []Summary
}

func withSummaryCache(b backend) *summaryCache {
	return &summaryCache{backend: b, dirty: map[string]struct{}{}}
}

// touch marks ids to be read again by the next list.
func (c *summaryCache) touch(ids ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sums == nil && !c.building {
		return // nothing cached yet: the first list reads everything
	}
	for _, id := range ids {
		c.dirty[id] = struct{}{}
	}
}

func (c *summaryCache) apply(id string, ch change) error {
	defer c.touch(id)
	return c.backend.apply(id, ch)
}

func (c *summaryCache) remove(ids []string) error {
	defer c.touch(ids...)
	return c.backend.remove(ids)
}

func (c *summaryCache) setArchived(ids []string, at time.Time) error {
	defer c.touch(ids...)
	return c.backend.setArchived(ids, at)
}

// summaries returns every stored session's summary: the cached ones with
// those written since read again (the first call reads them all).
func (c *summaryCache) summaries() ([]Summary, error) {
	c.refresh.Lock()
	defer c.refresh.Unlock()
	c.mu.Lock()
	if c.sums == nil && !c.building {
		c.building = true
		c.mu.Unlock()
		all, err := c.backend.summaries()
		c.mu.Lock()
		c.building = false
		if err != nil {
			c.dirty = map[string]struct{}{}
			c.mu.Unlock()
			return nil, err
		}
		c.sums = make(map[string]Summary, len(all))
		for _, s := range all {
			c.sums[s.ID] = s
		}
	}
	dirty := c.dirty
	c.dirty = map[string]struct{}{}
	c.mu.Unlock()
	fresh := make(map[string]*Summary, len(dirty))
	for id := range dirty {
		s, found, err := c.backend.summary(id)
		if err != nil {
			for id := range dirty { // read them all again next time
				c.touch(id)
			}
			return nil, err
		}
		if found {
			fresh[id] = &s
		} else {
			fresh[id] = nil
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, s := range fresh {
		if s == nil {
			delete(c.sums, id)
		} else {
			c.sums[id] = *s
		}
		c.sorted = nil
	}
	if c.sorted == nil {
		c.sorted = make([]Summary, 0, len(c.sums))
		for _, s := range c.sums {
			c.sorted = append(c.sorted, s)
		}
		slices.SortFunc(c.sorted, byRecency)
	}
	return slices.Clone(c.sorted), nil
}
