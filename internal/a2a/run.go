package a2a

import (
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// maxQueued bounds the events a run buffers while nothing relays them;
// past it, streamed chunks are dropped (the final answer replaces them).
const maxQueued = 4096

// liveRun is the beamclaw.Route of the run behind a task. It outlives a
// single Execute: a run that asks for approval ends one execution at
// input-required, keeps running (waiting), and the execution of the peer's
// answer picks its events up again. Deliver never blocks.
type liveRun struct {
	task    a2a.TaskID
	info    a2a.TaskInfo
	session string
	wake    chan struct{} // capacity 1: "the queue changed"
	// onEnd is called with the run when its terminal event arrives while
	// no execution relays it (the peer never answered an approval).
	onEnd func(*liveRun)

	mu       sync.Mutex
	runID    string
	queue    []beamclaw.RunEvent
	ended    bool // the terminal event arrived
	closed   bool // canceled, finished or dropped: later events are ignored
	attached bool // an execution relays the events
	approval string
	artifact a2a.ArtifactID
}

var _ beamclaw.Route = (*liveRun)(nil)

func newLiveRun(info a2a.TaskInfo, session string, onEnd func(*liveRun)) *liveRun {
	return &liveRun{task: info.TaskID, info: info, session: session, wake: make(chan struct{}, 1),
		onEnd: onEnd, attached: true}
}

// Deliver implements beamclaw.Route.
func (r *liveRun) Deliver(ev beamclaw.RunEvent) {
	switch ev.Type {
	case beamclaw.EvState, beamclaw.EvChunk, beamclaw.EvApprovalRequest, beamclaw.EvApprovalResult,
		beamclaw.EvFinal, beamclaw.EvError:
	default:
		return
	}
	r.mu.Lock()
	if r.closed || r.ended {
		r.mu.Unlock()
		return
	}
	switch {
	case ev.Type == beamclaw.EvApprovalRequest && ev.Approval != nil:
		r.approval = ev.Approval.ID
	case ev.Type == beamclaw.EvApprovalResult && ev.Approval != nil && ev.Approval.ID == r.approval:
		r.approval = ""
	}
	r.ended = ev.Terminal()
	if ev.Type != beamclaw.EvChunk || len(r.queue) < maxQueued {
		r.queue = append(r.queue, ev)
	}
	orphan := r.ended && !r.attached
	r.mu.Unlock()
	r.signal()
	if orphan {
		r.onEnd(r)
	}
}

func (r *liveRun) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// take moves the queued events into buf; done reports that the run was
// closed under the relay.
func (r *liveRun) take(buf []beamclaw.RunEvent) (evs []beamclaw.RunEvent, done bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	buf = append(buf[:0], r.queue...)
	clear(r.queue)
	r.queue = r.queue[:0]
	return buf, r.closed
}

// attach marks an execution as relaying; it fails when the run is closed.
func (r *liveRun) attach() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.attached = true
	return true
}

// detach ends the relaying of an execution; a run that ended meanwhile
// is finished without one.
func (r *liveRun) detach() {
	r.mu.Lock()
	r.attached = false
	orphan := r.ended && !r.closed
	r.mu.Unlock()
	if orphan {
		r.onEnd(r)
	}
}

// claim closes a run that ended with nothing relaying it and returns its
// remaining events; false when an execution (or a cancel) got it first.
func (r *liveRun) claim() ([]beamclaw.RunEvent, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.attached || r.closed || !r.ended {
		return nil, false
	}
	r.closed = true
	evs := r.queue
	r.queue = nil
	return evs, true
}

// close drops every later event and returns the approval still pending.
func (r *liveRun) close() (runID, approval string) {
	r.mu.Lock()
	r.closed = true
	runID, approval = r.runID, r.approval
	r.queue = nil
	r.mu.Unlock()
	r.signal()
	return runID, approval
}

func (r *liveRun) setRunID(id string) {
	r.mu.Lock()
	r.runID = id
	r.mu.Unlock()
}

// pending is the approval the run waits for ("" for none).
func (r *liveRun) pending() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.approval
}

// artifactID returns the id of the task's answer artifact, and whether it
// was created before (later chunks append to it).
func (r *liveRun) artifactID() (a2a.ArtifactID, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.artifact != "" {
		return r.artifact, true
	}
	r.artifact = a2a.NewArtifactID()
	return r.artifact, false
}

// runs are the live runs by task.
type runs struct {
	mu sync.Mutex
	m  map[a2a.TaskID]*liveRun
}

func (rs *runs) add(r *liveRun) {
	rs.mu.Lock()
	rs.m[r.task] = r
	rs.mu.Unlock()
}

func (rs *runs) get(id a2a.TaskID) *liveRun {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.m[id]
}

// remove forgets r (not a newer run of the same task).
func (rs *runs) remove(r *liveRun) {
	rs.mu.Lock()
	if rs.m[r.task] == r {
		delete(rs.m, r.task)
	}
	rs.mu.Unlock()
}

// all returns every live run and forgets them.
func (rs *runs) all() []*liveRun {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]*liveRun, 0, len(rs.m))
	for _, r := range rs.m {
		out = append(out, r)
	}
	clear(rs.m)
	return out
}
