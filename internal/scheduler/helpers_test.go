package scheduler

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// t0 is where every test's fake clock starts.
var t0 = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// patience bounds every wait for something the code under test does
// asynchronously; reaching it is a failure, never a measurement. It is
// generous: the runner's steps commit to a real bbolt file, and an fsync
// can stall for many seconds while the sandbox tests unpack images on the
// same disk (CI saw two waits pass 20 s at once).
const patience = 90 * time.Second

// env is a Scheduler on a real bbolt file and a fake clock, with fake
// turns, a recording deliverer and an event recorder.
type env struct {
	t      *testing.T
	clk    *clock.Fake
	path   string
	db     *store.DB
	s      *Scheduler
	turns  *fakeTurns
	out    *fakeDeliverer
	events *recorder
	parks  *parkBox
	ended  chan runEnd
	opts   func(*Options)

	cancel context.CancelFunc
	done   chan error
}

type runEnd struct {
	job     string
	outcome Outcome
}

// newEnv opens a store and builds a Scheduler; opts may adjust Options.
func newEnv(t *testing.T, opts func(*Options)) *env {
	t.Helper()
	return newEnvAt(t, t0, opts)
}

// newEnvAt is newEnv with the clock at start.
func newEnvAt(t *testing.T, start time.Time, opts func(*Options)) *env {
	t.Helper()
	e := &env{
		t: t, clk: clock.NewFake(start), path: filepath.Join(t.TempDir(), "beamclaw.db"),
		turns: newFakeTurns(), out: &fakeDeliverer{got: make(chan Message, 1000)},
		events: &recorder{}, opts: opts,
	}
	e.open()
	t.Cleanup(func() {
		e.stop()
		_ = e.db.Close()
	})
	return e
}

// open opens the store and builds a new Scheduler, as a daemon start does.
func (e *env) open() {
	e.t.Helper()
	if e.db == nil {
		db, err := store.Open(e.path, store.Options{})
		if err != nil {
			e.t.Fatal(err)
		}
		e.db = db
	}
	o := Options{DB: e.db, Turns: e.turns, Deliverer: e.out, Emitter: e.events, Clock: e.clk, Workers: 2,
		MaxSleep: 7 * 24 * time.Hour}
	if e.opts != nil {
		e.opts(&o)
	}
	s, err := New(o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.s = s
	e.parks = &parkBox{ch: make(chan struct{}, 1)}
	e.ended = make(chan runEnd, 100000)
	s.runner.parked = e.parks.put
	s.afterRun = func(job string, o Outcome) { e.ended <- runEnd{job, o} }
}

// start serves the scheduler until stop.
func (e *env) start() {
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel, e.done = cancel, make(chan error, 1)
	s := e.s
	go func() { e.done <- s.Serve(ctx) }()
}

// stop stops the scheduler and waits for it.
func (e *env) stop() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	select {
	case <-e.done:
	case <-time.After(patience):
		e.t.Fatal("scheduler did not stop")
	}
	e.cancel = nil
}

// restart stops the scheduler, reopens the bbolt file (a new process),
// sets the clock to at and starts a new Scheduler.
func (e *env) restart(at time.Time) {
	e.t.Helper()
	e.stop()
	if err := e.db.Close(); err != nil {
		e.t.Fatal(err)
	}
	e.db = nil
	e.clk.Set(at)
	e.open()
	e.start()
}

// parkBox holds the runner's latest wait; the runner never blocks on it.
type parkBox struct {
	mu   sync.Mutex
	seq  int
	at   time.Time
	seen int
	ch   chan struct{}
}

func (b *parkBox) put(_ context.Context, at time.Time) {
	b.mu.Lock()
	b.seq++
	b.at = at
	b.mu.Unlock()
	select {
	case b.ch <- struct{}{}:
	default:
	}
}

// park waits for a wait of the runner not returned before and returns
// the deadline of the latest one.
func (e *env) park() time.Time {
	e.t.Helper()
	b := e.parks
	deadline := time.After(patience)
	for {
		b.mu.Lock()
		if b.seq > b.seen {
			b.seen = b.seq
			at := b.at
			b.mu.Unlock()
			return at
		}
		b.mu.Unlock()
		select {
		case <-b.ch:
		case <-deadline:
			e.t.Fatal("the runner never waited on its timer")
		}
	}
}

// parkAt waits until the runner waits for the deadline want.
func (e *env) parkAt(want time.Time) {
	e.t.Helper()
	for !e.park().Equal(want) {
	}
}

// advanceTo moves the clock to end, stopping at each deadline the runner
// waits for, so every job fires at its own instant; turns take no time
// (the clock moves on only when no run is executing, so a turn that
// blocks blocks it: use fireAt then). A wait that
// predates a change of the jobs (a stored next run earlier than its
// deadline) is passed over for the runner's next one.
func (e *env) advanceTo(end time.Time) {
	e.t.Helper()
	for {
		at := e.park()
		if e.busy() {
			continue // the run's end wakes the runner again
		}
		if due := e.earliestDue(); !due.IsZero() && due.Before(at) {
			continue
		}
		if at.After(end) {
			e.clk.Set(end)
			return
		}
		e.clk.Set(at)
	}
}

// fireAt lets the runner fire at its deadline at, whatever is running.
func (e *env) fireAt(at time.Time) {
	e.t.Helper()
	e.parkAt(at)
	e.clk.Set(at)
}

// busy reports whether a run is queued or executing.
func (e *env) busy() bool {
	e.s.mu.Lock()
	defer e.s.mu.Unlock()
	return len(e.s.flights) > 0
}

// earliestDue is the earliest next run of the active jobs in the store.
func (e *env) earliestDue() time.Time {
	e.t.Helper()
	var min time.Time
	err := e.s.area.View(func(tx *store.Tx) error {
		return eachJob(tx, func(j Job) error {
			if j.State == StateActive && !j.NextRunAt.IsZero() && (min.IsZero() || j.NextRunAt.Before(min)) {
				min = j.NextRunAt
			}
			return nil
		})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return min
}

// add adds a job or fails the test.
func (e *env) add(req AddRequest) Job {
	e.t.Helper()
	if req.Agent == "" {
		req.Agent = "ana"
	}
	if req.UserID == "" {
		req.UserID = "local:u1"
	}
	if req.Prompt == "" {
		req.Prompt = "remind me"
	}
	if req.Delivery == "" {
		req.Delivery = "tui"
	}
	j, err := e.s.Add(context.Background(), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

// waitRuns waits until n runs ended and returns them.
func (e *env) waitRuns(n int) []runEnd {
	e.t.Helper()
	var out []runEnd
	for len(out) < n {
		select {
		case r := <-e.ended:
			out = append(out, r)
		case <-time.After(patience):
			e.t.Fatalf("%d of %d runs ended", len(out), n)
		}
	}
	return out
}

func (e *env) job(id string) Job {
	e.t.Helper()
	j, err := e.s.Get(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

func (e *env) runs(id string) []Run {
	e.t.Helper()
	rs, err := e.s.Runs(context.Background(), id, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}
