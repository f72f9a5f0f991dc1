package scheduler

import (
	"container/heap"
	"time"
)

// index is the runner's in-memory view of active jobs: a min-heap of next
// run instants, so one timer for the earliest job serves them all.
type index struct {
	h    entries
	byID map[string]*entry
}

type entry struct {
	at  time.Time
	id  string
	pos int
}

func newIndex() *index { return &index{byID: make(map[string]*entry)} }

// set puts the job's next run at at; a zero at takes it out.
func (x *index) set(id string, at time.Time) {
	e := x.byID[id]
	switch {
	case at.IsZero() && e != nil:
		heap.Remove(&x.h, e.pos)
		delete(x.byID, id)
	case at.IsZero():
	case e != nil:
		e.at = at
		heap.Fix(&x.h, e.pos)
	default:
		e = &entry{at: at, id: id}
		x.byID[id] = e
		heap.Push(&x.h, e)
	}
}

// due takes out up to max jobs due at now, earliest first.
func (x *index) due(now time.Time, max int) []string {
	var ids []string
	for len(x.h) > 0 && len(ids) < max && !x.h[0].at.After(now) {
		e := heap.Pop(&x.h).(*entry)
		delete(x.byID, e.id)
		ids = append(ids, e.id)
	}
	return ids
}

// earliest is the first next-run instant.
func (x *index) earliest() (time.Time, bool) {
	if len(x.h) == 0 {
		return time.Time{}, false
	}
	return x.h[0].at, true
}

func (x *index) len() int { return len(x.h) }

type entries []*entry

func (h entries) Len() int { return len(h) }
func (h entries) Less(i, j int) bool {
	if h[i].at.Equal(h[j].at) {
		return h[i].id < h[j].id
	}
	return h[i].at.Before(h[j].at)
}
func (h entries) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].pos, h[j].pos = i, j
}
func (h *entries) Push(v any) {
	e := v.(*entry)
	e.pos = len(*h)
	*h = append(*h, e)
}
func (h *entries) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
