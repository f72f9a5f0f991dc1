package a2a

import (
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/runqueue"
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
	// onEnd is called with the run when its terminal event arrives while
	// no execution relays it (the peer never answered an approval).
	onEnd func(*liveRun)

	mu sync.Mutex
	// q is closed when the run is canceled, finished or dropped: later
	// events are ignored.
	q        runqueue.Queue
	runID    string
	attached bool // an execution relays the events
	approval string
	artifact a2a.ArtifactID
}

var _ beamclaw.Route = (*liveRun)(nil)

func newLiveRun(info a2a.TaskInfo, session string, onEnd func(*liveRun)) *liveRun {
	return &liveRun{task: info.TaskID, info: info, session: session, q: runqueue.New(maxQueued),
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
	if !r.q.Push(ev) {
		r.mu.Unlock()
		return
	}
	switch {
	case ev.Type == beamclaw.EvApprovalRequest && ev.Approval != nil:
		r.approval = ev.Approval.ID
	case ev.Type == beamclaw.EvApprovalResult && ev.Approval != nil && ev.Approval.ID == r.approval:
		r.approval = ""
	}
	orphan := r.q.Ended() && !r.attached
	r.mu.Unlock()
	if orphan {
		r.onEnd(r)
	}
}

// wake receives a value when the queue changed.
func (r *liveRun) wake() <-chan struct{} { return r.q.Wake() }

// take moves the queued events into buf; done reports that the run was
// closed under the relay.
func (r *liveRun) take(buf []beamclaw.RunEvent) (evs []beamclaw.RunEvent, done bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.q.Take(buf), r.q.Closed()
}

// attach marks an execution as relaying; it fails when the run is closed.
func (r *liveRun) attach() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.q.Closed() {
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
	orphan := r.q.Ended() && !r.q.Closed()
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
	if r.attached || r.q.Closed() || !r.q.Ended() {
		return nil, false
	}
	return r.q.Close(), true
}

// close drops every later event and returns the approval still pending.
func (r *liveRun) close() (runID, approval string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.q.Close()
	return r.runID, r.approval
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
