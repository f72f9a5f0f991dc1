package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

// Scheduler owns the jobs. Its management methods (Add, List, Pause, ...)
// are safe for concurrent use and work without serving; Serve runs the
// runner and the executor under a supervisor of their own. The state of
// every timer is in bbolt: a runner or executor that crashes and restarts
// recomputes it.
type Scheduler struct {
	opts     Options
	area     *store.Area // its buckets
	clock    clock.Clock
	log      *slog.Logger
	opened   time.Time // jobs due before it fell due while beamclaw was stopped
	runner   *Runner
	executor *Executor
	webhook  *Webhook
	zones    sync.Map // IANA name → *time.Location
	// afterRun, when set (tests), is called after a run's record commits.
	afterRun func(jobID string, o Outcome)

	mu        sync.Mutex
	changed   map[string]struct{} // jobs the runner must reload
	reloadAll bool                // the runner must reload everything, recovering interrupted runs
	reindex   bool                // the runner must reload everything: other nodes wrote (cluster mode)
	queue     []dispatch          // runs no executor worker took yet
	flights   map[string]*flight  // queued or running, by job id
	wake      chan struct{}       // wakes the runner
	ready     chan struct{}       // wakes an executor worker
}

// dispatch is a run handed from the runner to the executor.
type dispatch struct {
	job     Job // as it was when the run started
	seq     uint64
	due     time.Time
	started time.Time
}

// flight is a run that is queued or executing.
type flight struct {
	cancel   context.CancelFunc // set while executing
	canceled bool               // the job was canceled while it ran
}

// New returns a Scheduler and creates its buckets. It starts nothing.
func New(opts Options) (*Scheduler, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	area, err := openArea(o.DB)
	if err != nil {
		return nil, err
	}
	s := &Scheduler{
		opts: o, clock: o.Clock, log: o.Logger, area: area,
		changed: make(map[string]struct{}),
		flights: make(map[string]*flight),
		wake:    make(chan struct{}, 1),
		ready:   make(chan struct{}, 1),
	}
	s.opened = s.clock.Now()
	area.OnChange(s.othersChanged)
	s.runner = &Runner{s: s}
	s.executor = &Executor{s: s}
	s.webhook = NewWebhook(o.Webhook)
	return s, nil
}

// Serve runs the runner and the executor, each guarded (a panic restarts
// only that service), until ctx ends.
func (s *Scheduler) Serve(ctx context.Context) error {
	sup := supervise.New("scheduler", supervise.Options{Logger: s.log})
	sup.Add(supervise.Guard(s.runner, supervise.GuardOptions{Clock: s.clock}))
	sup.Add(supervise.Guard(s.executor, supervise.GuardOptions{Clock: s.clock}))
	return sup.Serve(ctx)
}

func (s *Scheduler) String() string { return "scheduler" }

// Runner is the timer service, for a caller that builds its own tree.
func (s *Scheduler) Runner() *Runner { return s.runner }

// Executor is the run service, for a caller that builds its own tree.
func (s *Scheduler) Executor() *Executor { return s.executor }

// notify tells the runner that jobs changed.
func (s *Scheduler) notify(ids ...string) {
	s.mu.Lock()
	for _, id := range ids {
		s.changed[id] = struct{}{}
	}
	s.mu.Unlock()
	signal(s.wake)
}

// TakeOver readies the scheduler to run again on this node after another
// ran it (cluster mode): runs queued under an earlier hold are dropped
// (the jobs' records say what became of them) and every job is reloaded.
func (s *Scheduler) TakeOver() {
	s.mu.Lock()
	for i := range s.queue {
		delete(s.flights, s.queue[i].job.ID)
	}
	s.queue = nil
	s.reloadAll = true
	s.mu.Unlock()
}

// othersChanged follows the writes of other nodes (cluster mode): the
// runner reloads every job (a job running elsewhere is not an
// interrupted run), and a run in flight here whose job was canceled or
// deleted there is stopped.
func (s *Scheduler) othersChanged() {
	s.mu.Lock()
	ids := make([]string, 0, len(s.flights))
	for id := range s.flights {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	var gone []string
	_ = s.area.View(func(tx *store.Tx) error {
		for _, id := range ids {
			if j, ok, err := getJob(tx, id); err == nil && (!ok || j.State == StateDone) {
				gone = append(gone, id)
			}
		}
		return nil
	})
	for _, id := range gone {
		s.cancelFlight(id)
	}
	s.mu.Lock()
	s.reindex = true
	s.mu.Unlock()
	signal(s.wake)
}

// notifyAll makes the runner reload every job.
func (s *Scheduler) notifyAll() {
	s.mu.Lock()
	s.reloadAll = true
	s.mu.Unlock()
	signal(s.wake)
}

func (s *Scheduler) takeChanges() (ids []string, all, reindex bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, s.reloadAll = s.reloadAll, false
	reindex, s.reindex = s.reindex, false
	for id := range s.changed {
		ids = append(ids, id)
	}
	clear(s.changed)
	return ids, all, reindex
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// enqueue hands runs to the executor.
func (s *Scheduler) enqueue(ds ...dispatch) {
	if len(ds) == 0 {
		return
	}
	s.mu.Lock()
	for _, d := range ds {
		s.queue = append(s.queue, d)
		s.flights[d.job.ID] = &flight{}
	}
	s.mu.Unlock()
	signal(s.ready)
}

// take waits for the next queued run.
func (s *Scheduler) take(ctx context.Context) (dispatch, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			d := s.queue[0]
			s.queue[0] = dispatch{}
			s.queue = s.queue[1:]
			more := len(s.queue) > 0
			if !more {
				s.queue = nil
			}
			s.mu.Unlock()
			if more {
				signal(s.ready)
			}
			return d, true
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return dispatch{}, false
		case <-s.ready:
		}
	}
}

// inFlight reports whether a run of the job is queued or executing.
func (s *Scheduler) inFlight(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flights[id] != nil
}

// land forgets a run that ended (after its record committed, or after a
// stop left it to the next start).
func (s *Scheduler) land(id string) {
	s.mu.Lock()
	delete(s.flights, id)
	s.mu.Unlock()
}

// zone returns the location of an IANA name, loading each name once.
func (s *Scheduler) zone(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	if loc, ok := s.zones.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	s.zones.Store(name, loc)
	return loc
}

// load reads a job and resolves its schedule's zone.
func (s *Scheduler) load(tx *store.Tx, id string) (Job, bool, error) {
	j, ok, err := getJob(tx, id)
	if ok {
		j.Schedule.loc = s.zone(j.Schedule.TZ)
	}
	return j, ok, err
}

// each calls fn for every job, zones resolved.
func (s *Scheduler) each(tx *store.Tx, fn func(Job) error) error {
	return eachJob(tx, func(j Job) error {
		j.Schedule.loc = s.zone(j.Schedule.TZ)
		return fn(j)
	})
}

// storeErr wraps a bbolt failure.
func storeErr(op string, err error) error {
	return fmt.Errorf("%s: store: %w", op, err)
}
