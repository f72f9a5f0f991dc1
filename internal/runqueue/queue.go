package runqueue

import "github.com/beamclaw/beamclaw-go/internal/beamclaw"

// Queue is the events of one run not relayed yet, with a wake-up for its
// consumer. It has no lock of its own: its owner's mutex guards every
// method but Wake and Signal, so the owner changes its own state in the
// same critical section as the queue's. Make one with New.
type Queue struct {
	wake   chan struct{} // capacity 1: "the queue changed"
	limit  int           // past this many queued events chunks are dropped; 0: no bound
	events []beamclaw.RunEvent
	ended  bool // the terminal event was queued
	closed bool // the consumer is gone: later events are dropped
}

// New returns an empty queue. Past limit queued events, EvChunk events are
// dropped (the final answer replaces them); 0 keeps them all.
func New(limit int) Queue {
	return Queue{wake: make(chan struct{}, 1), limit: limit}
}

// Push queues ev and wakes the consumer. It reports false, and drops ev,
// when the queue is closed or its run's terminal event was queued.
func (q *Queue) Push(ev beamclaw.RunEvent) bool {
	if q.closed || q.ended {
		return false
	}
	q.ended = ev.Terminal()
	if ev.Type != beamclaw.EvChunk || q.limit == 0 || len(q.events) < q.limit {
		q.events = append(q.events, ev)
	}
	q.Signal()
	return true
}

// Take moves the queued events into buf and returns it.
func (q *Queue) Take(buf []beamclaw.RunEvent) []beamclaw.RunEvent {
	buf = append(buf[:0], q.events...)
	clear(q.events)
	q.events = q.events[:0]
	return buf
}

// Close drops every later event, returns those still queued and wakes the
// consumer (to see the queue closed).
func (q *Queue) Close() []beamclaw.RunEvent {
	evs := q.events
	q.closed, q.events = true, nil
	q.Signal()
	return evs
}

// Ended reports whether the run's terminal event was queued.
func (q *Queue) Ended() bool { return q.ended }

// Closed reports whether Close was called.
func (q *Queue) Closed() bool { return q.closed }

// Wake receives a value after the queue changed; one value stands for any
// number of changes, so the consumer takes everything once woken.
func (q *Queue) Wake() <-chan struct{} { return q.wake }

// Signal wakes the consumer without blocking.
func (q *Queue) Signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}
