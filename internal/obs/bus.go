package obs

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// Backend receives events on the bus's goroutine, one at a time. A slow
// backend delays other backends, never the emitters.
type Backend interface {
	Handle(ev beamclaw.Event)
}

// Bus is the event fan-out. Its zero value is not usable; use NewBus.
type Bus struct {
	queue    chan beamclaw.Event
	dropped  atomic.Uint64
	backends atomic.Pointer[[]Backend]
	mu       sync.Mutex // serialises Add
	now      func() time.Time
}

// NewBus returns a bus holding at most size queued events
// (DefaultQueueSize if size is not positive).
func NewBus(size int) *Bus {
	if size <= 0 {
		size = DefaultQueueSize
	}
	b := &Bus{queue: make(chan beamclaw.Event, size), now: time.Now}
	b.backends.Store(&[]Backend{})
	return b
}

// Emit queues ev for the backends without ever blocking: when the queue is
// full the event is dropped and counted. It does not allocate.
func (b *Bus) Emit(_ context.Context, ev beamclaw.Event) {
	if ev.Time.IsZero() {
		ev.Time = b.now()
	}
	select {
	case b.queue <- ev:
	default:
		b.dropped.Add(1)
	}
}

// Dropped is how many events were dropped because the queue was full.
func (b *Bus) Dropped() uint64 { return b.dropped.Load() }

// Add registers a backend for events emitted from now on.
func (b *Bus) Add(be Backend) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := *b.backends.Load()
	next := make([]Backend, len(old), len(old)+1)
	copy(next, old)
	next = append(next, be)
	b.backends.Store(&next)
}

// Serve delivers queued events to the backends until ctx is done, then
// delivers what is still queued and returns.
func (b *Bus) Serve(ctx context.Context) error {
	for {
		select {
		case ev := <-b.queue:
			b.deliver(ev)
		case <-ctx.Done():
			for {
				select {
				case ev := <-b.queue:
					b.deliver(ev)
				default:
					return ctx.Err()
				}
			}
		}
	}
}

func (b *Bus) deliver(ev beamclaw.Event) {
	for _, be := range *b.backends.Load() {
		be.Handle(ev)
	}
}

// String names the service.
func (b *Bus) String() string { return "obs.bus" }
