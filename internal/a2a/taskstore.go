package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// The buckets the A2A edge owns.
const (
	bucketTasks    = "a2a_tasks"      // task id → taskRecord
	bucketIndex    = "a2a_task_index" // owner 0 agent 0 newest-first time, task id → indexEntry
	bucketContexts = "a2a_contexts"   // context id → contextRecord
	bucketPush     = "a2a_push"       // task id 0 config id → a2a.PushConfig
)

// taskRecord is a task as stored: the A2A task (its own JSON) and what
// only beamclaw knows of it.
type taskRecord struct {
	ID       a2a.TaskID      `json:"id"`
	Task     json.RawMessage `json:"task"`
	State    a2a.TaskState   `json:"state"`
	Context  string          `json:"context"`
	StatusAt *time.Time      `json:"status_at,omitempty"`
	Version  int64           `json:"version"`
	Owner    string          `json:"owner"`          // the caller that created it
	Node     string          `json:"node,omitempty"` // the node that runs it (cluster mode)
	Agent    string          `json:"agent"`
	User     string          `json:"user"` // the session's user id
	Session  string          `json:"session"`
	Created  time.Time       `json:"created"`
	Updated  time.Time       `json:"updated"`
}

// contextRecord says whose a context id is and which session user its
// tasks run as.
type contextRecord struct {
	Owner string    `json:"owner"`
	Agent string    `json:"agent"`
	User  string    `json:"user"`
	Used  time.Time `json:"used"`
}

// binding is what the executor knows of a task before the SDK creates it.
type binding struct {
	owner, agent, user, session string
	early                       bool
}

// TaskStore is the SDK's task store on bbolt. A task is written to disk
// when the caller is told about it and whenever it reaches a state a
// caller waits for (input-required, auth-required, terminal), in one
// group-committed transaction each; the updates between (working,
// streamed artifact chunks) stay in memory. A blocking SendMessage's task
// is created only when it ends or asks for input (translator.quiet), so
// that turn costs one fsync more than over /v1/chat/completions. After a crash, a task left
// unfinished on disk is failed at the next start (recoverTasks): its run is
// gone with the process.
type TaskStore struct {
	area *store.Area // "a2a": in cluster mode the cluster's (ADR-045)
	node string      // this node (cluster mode)
	// elsewhere asks the node that runs a task for its newest record
	// (cluster mode; nil alone): Options.TaskElsewhere.
	elsewhere func(ctx context.Context, node, id string) ([]byte, error)
	clock     clock.Clock
	emit      func(ctx context.Context, name beamclaw.EventName, attrs ...slog.Attr)

	mu       sync.Mutex
	hot      map[a2a.TaskID]*taskRecord // newer than disk, or not on it yet
	bindings map[a2a.TaskID]binding
	contexts map[string]contextRecord // contexts of tasks not on disk yet
	locks    map[a2a.TaskID]*keyLock
}

var _ taskstore.Store = (*TaskStore)(nil)

type keyLock struct {
	mu   sync.Mutex
	refs int
}

func newTaskStore(db *store.DB, node string, clk clock.Clock, emit func(context.Context, beamclaw.EventName, ...slog.Attr)) (*TaskStore, error) {
	area, err := tasksArea(db)
	if err != nil {
		return nil, err
	}
	return &TaskStore{area: area, node: node, clock: clk, emit: emit, hot: map[a2a.TaskID]*taskRecord{},
		bindings: map[a2a.TaskID]binding{}, contexts: map[string]contextRecord{}, locks: map[a2a.TaskID]*keyLock{}}, nil
}

// tasksArea is the area of the tasks, their contexts and push configs.
func tasksArea(db *store.DB) (*store.Area, error) {
	return db.Area("a2a", bucketTasks, bucketIndex, bucketContexts, bucketPush)
}

// lock serialises the writers of one task.
func (s *TaskStore) lock(id a2a.TaskID) func() {
	s.mu.Lock()
	l := s.locks[id]
	if l == nil {
		l = &keyLock{}
		s.locks[id] = l
	}
	l.refs++
	s.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(s.locks, id)
		}
		s.mu.Unlock()
	}
}

// bind tells the store who a task about to be created belongs to.
func (s *TaskStore) bind(id a2a.TaskID, b binding) {
	s.mu.Lock()
	s.bindings[id] = b
	s.mu.Unlock()
}

func (s *TaskStore) unbind(id a2a.TaskID) {
	s.mu.Lock()
	delete(s.bindings, id)
	s.mu.Unlock()
}

// Create implements taskstore.Store.
func (s *TaskStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	if task == nil || task.ID == "" {
		return taskstore.TaskVersionMissing, fmt.Errorf("a task needs an id: %w", a2a.ErrInvalidParams)
	}
	defer s.lock(task.ID)()
	if _, ok, err := s.current(task.ID); err != nil || ok {
		return taskstore.TaskVersionMissing, cmpErr(err, taskstore.ErrTaskAlreadyExists)
	}
	s.mu.Lock()
	b, ok := s.bindings[task.ID]
	delete(s.bindings, task.ID)
	s.mu.Unlock()
	if !ok {
		sc, _ := scopeFrom(ctx)
		b = binding{owner: sc.caller, agent: sc.agent, early: sc.early}
	}
	now := s.clock.Now()
	rec := &taskRecord{Version: 1, Owner: b.owner, Node: s.node, Agent: b.agent, User: b.user, Session: b.session, Created: now, Updated: now}
	if err := rec.setTask(task); err != nil {
		return taskstore.TaskVersionMissing, err
	}
	if b.early || settled(rec.State) {
		if err := s.write(rec); err != nil {
			return taskstore.TaskVersionMissing, err
		}
	} else {
		s.mu.Lock()
		s.hot[task.ID] = rec
		if _, known := s.contexts[rec.Context]; !known {
			s.contexts[rec.Context] = contextRecord{Owner: rec.Owner, Agent: rec.Agent, User: rec.User, Used: now}
		}
		s.mu.Unlock()
	}
	s.emit(ctx, beamclaw.EventA2ATaskUpdated, slog.String("task_id", string(task.ID)), slog.String("state", stateName(rec.State)),
		slog.String("agent", rec.Agent), slog.String("caller", rec.Owner))
	return taskstore.TaskVersion(rec.Version), nil
}

// Update implements taskstore.Store.
func (s *TaskStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	if req == nil || req.Task == nil {
		return taskstore.TaskVersionMissing, fmt.Errorf("an update needs a task: %w", a2a.ErrInvalidParams)
	}
	id := req.Task.ID
	defer s.lock(id)()
	cur, ok, err := s.current(id)
	switch {
	case err != nil:
		return taskstore.TaskVersionMissing, err
	case !ok:
		return taskstore.TaskVersionMissing, a2a.ErrTaskNotFound
	case req.PrevVersion != taskstore.TaskVersionMissing && taskstore.TaskVersion(cur.Version) != req.PrevVersion:
		return taskstore.TaskVersionMissing, taskstore.ErrConcurrentModification
	}
	next := *cur
	if err := next.setTask(req.Task); err != nil {
		return taskstore.TaskVersionMissing, err
	}
	next.Version++
	next.Updated = s.clock.Now()
	if err := s.save(&next); err != nil {
		return taskstore.TaskVersionMissing, err
	}
	if next.State != cur.State {
		s.emit(ctx, beamclaw.EventA2ATaskUpdated, slog.String("task_id", string(id)), slog.String("state", stateName(next.State)),
			slog.String("agent", next.Agent), slog.String("caller", next.Owner))
	}
	return taskstore.TaskVersion(next.Version), nil
}

// save keeps rec in memory, or writes it when its state is one a caller
// waits for.
func (s *TaskStore) save(rec *taskRecord) error {
	if !settled(rec.State) {
		s.mu.Lock()
		s.hot[rec.ID] = rec
		s.mu.Unlock()
		return nil
	}
	return s.write(rec)
}

// settled states are written at once: a caller is waiting for them.
func settled(st a2a.TaskState) bool {
	return st.Terminal() || st == a2a.TaskStateInputRequired || st == a2a.TaskStateAuthRequired
}

// Get implements taskstore.Store. A caller sees only its own tasks: any
// other is not found.
func (s *TaskStore) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	rec, err := s.mine(ctx, id)
	if err != nil {
		return nil, err
	}
	rec = s.newest(ctx, rec)
	task, err := rec.task()
	if err != nil {
		return nil, err
	}
	return &taskstore.StoredTask{Task: task, Version: taskstore.TaskVersion(rec.Version)}, nil
}

// mine is task id's record as this node has it, when the caller of ctx
// may see it (else a2a.ErrTaskNotFound).
func (s *TaskStore) mine(ctx context.Context, id a2a.TaskID) (*taskRecord, error) {
	rec, ok, err := s.current(id)
	if err != nil {
		return nil, err
	}
	if !ok || !visible(ctx, rec) {
		return nil, a2a.ErrTaskNotFound
	}
	return rec, nil
}

// newest is rec, or the newer record the node that runs it keeps in
// memory (working updates, streamed artifacts: cluster mode).
func (s *TaskStore) newest(ctx context.Context, rec *taskRecord) *taskRecord {
	if s.elsewhere == nil || rec.Node == "" || rec.Node == s.node || settled(rec.State) {
		return rec
	}
	data, err := s.elsewhere(ctx, rec.Node, string(rec.ID))
	if err != nil || len(data) == 0 {
		return rec
	}
	var live taskRecord
	if json.Unmarshal(data, &live) != nil || live.ID != rec.ID || live.Owner != rec.Owner || live.Version < rec.Version {
		return rec
	}
	// The content is the running node's; the version stays this store's,
	// which this node's own writes (a cancel when that node is gone) are
	// checked against.
	live.Version = rec.Version
	return &live
}

// live is the JSON of task id's record while this node runs it and holds
// updates not on disk yet; ok false otherwise.
func (s *TaskStore) live(id a2a.TaskID) (data []byte, ok bool) {
	s.mu.Lock()
	rec, hot := s.hot[id]
	var err error
	if hot {
		data, err = json.Marshal(rec)
	}
	s.mu.Unlock()
	return data, hot && err == nil
}

// visible reports whether the caller of ctx may see rec (a context without
// a caller is the daemon's own).
func visible(ctx context.Context, rec *taskRecord) bool {
	sc, ok := scopeFrom(ctx)
	return !ok || (rec.Owner == sc.caller && rec.Agent == sc.agent)
}

// current returns the latest record of id: in memory, or on disk.
func (s *TaskStore) current(id a2a.TaskID) (*taskRecord, bool, error) {
	s.mu.Lock()
	rec, ok := s.hot[id]
	s.mu.Unlock()
	if ok {
		cp := *rec
		return &cp, true, nil
	}
	return s.read(id)
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// stateName is a task state as events and logs name it ("completed").
func stateName(st a2a.TaskState) string {
	const prefix = "TASK_STATE_"
	s := st.String()
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		s = s[len(prefix):]
	}
	b := []byte(s)
	for i, c := range b {
		switch {
		case c == '_':
			b[i] = '-'
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
