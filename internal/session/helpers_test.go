package session

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/leak"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/obs/obstest"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

func TestMain(m *testing.M) { leak.VerifyTestMain(m) }

// step is one scripted provider answer.
type step func(ctx context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error)

// scripted is an in-test Provider: it plays steps in order and then echoes
// the last user message. Compaction requests go to summary.
type scripted struct {
	mu       sync.Mutex
	steps    []step
	reqs     []beamclaw.ChatRequest
	summary  step
	flush    step // the hidden memory-flush turn
	noRecord bool // benchmarks: keep no requests
}

func (p *scripted) Name() string { return "scripted" }

func (p *scripted) Chat(ctx context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	p.mu.Lock()
	if !p.noRecord {
		req.Messages = append([]beamclaw.Message(nil), req.Messages...)
		p.reqs = append(p.reqs, req)
	}
	var s step
	switch {
	case strings.HasPrefix(req.System, "You compact conversations"):
		s = p.summary
	case strings.HasPrefix(req.System, "The conversation below is about to be compacted"):
		s = p.flush
	case len(p.steps) > 0:
		s, p.steps = p.steps[0], p.steps[1:]
	}
	p.mu.Unlock()
	if s == nil {
		s = echo
	}
	return s(ctx, req, onText)
}

func (p *scripted) add(steps ...step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, steps...)
}

// addHang adds a step that holds the run until it is canceled; the
// channel it returns is closed when the model is asked.
func (p *scripted) addHang() <-chan struct{} {
	asked := make(chan struct{})
	p.add(func(ctx context.Context, _ beamclaw.ChatRequest, _ func(string)) (beamclaw.ChatResponse, error) {
		close(asked)
		<-ctx.Done()
		return beamclaw.ChatResponse{}, ctx.Err()
	})
	return asked
}

func (p *scripted) requests() []beamclaw.ChatRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]beamclaw.ChatRequest(nil), p.reqs...)
}

func lastUser(req beamclaw.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == beamclaw.RoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

func echo(_ context.Context, req beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	text := "echo: " + lastUser(req)
	onText(text)
	return beamclaw.ChatResponse{Message: beamclaw.Message{Role: beamclaw.RoleAssistant, Content: text}}, nil
}

func say(text string) step {
	return func(_ context.Context, _ beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
		onText(text)
		return beamclaw.ChatResponse{Message: beamclaw.Message{Role: beamclaw.RoleAssistant, Content: text}}, nil
	}
}

func callTool(name, args string) step {
	return func(context.Context, beamclaw.ChatRequest, func(string)) (beamclaw.ChatResponse, error) {
		return beamclaw.ChatResponse{Message: beamclaw.Message{Role: beamclaw.RoleAssistant,
			ToolCalls: []beamclaw.ToolCall{{Name: name, Args: json.RawMessage(args)}}}}, nil
	}
}

// recorder is a Route that records events.
type recorder struct {
	mu     sync.Mutex
	events []beamclaw.RunEvent
	done   chan struct{}
	once   sync.Once
}

func newRecorder() *recorder { return &recorder{done: make(chan struct{})} }

func (r *recorder) Deliver(ev beamclaw.RunEvent) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	if ev.Terminal() {
		r.once.Do(func() { close(r.done) })
	}
}

// wait returns the terminal event.
func (r *recorder) wait(t testing.TB) beamclaw.RunEvent {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		t.Fatal("no terminal event")
	}
	ts := r.terminals()
	return ts[0]
}

func (r *recorder) terminals() []beamclaw.RunEvent {
	return r.of(beamclaw.EvFinal, beamclaw.EvError)
}

func (r *recorder) of(types ...beamclaw.RunEventType) []beamclaw.RunEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []beamclaw.RunEvent
	for _, ev := range r.events {
		for _, ty := range types {
			if ev.Type == ty {
				out = append(out, ev)
			}
		}
	}
	return out
}

func attrInt(ev beamclaw.Event, key string) int64 {
	for _, a := range ev.Attrs {
		if a.Key == key {
			return a.Value.Int64()
		}
	}
	return -1
}

// echoTool is a tool that reports its argument; runs counts executions.
type echoTool struct {
	name     string
	approval bool
	runs     atomic.Int32
	output   string
}

func (t *echoTool) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{
		Def: beamclaw.ToolDef{Name: t.name, Description: "echo",
			Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		RequiresApproval: t.approval,
		MinAutonomy:      beamclaw.ReadOnly,
		Risk:             beamclaw.RiskMedium,
	}
}

func (t *echoTool) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	t.runs.Add(1)
	if t.output != "" {
		return t.output, nil
	}
	return "ran " + string(inv.Args), nil
}

// env is a Manager on a real bbolt file with a scripted provider.
type env struct {
	m      *Manager
	p      *scripted
	ev     *obstest.Recorder
	tools  *tool.Registry
	db     *store.DB
	path   string
	cancel context.CancelFunc
	done   <-chan error
}

type envOpts struct {
	session func(*Options)
	loop    func(*loop.Options)
	tools   []beamclaw.Tool
	path    string
	p       *scripted
	lean    bool // benchmarks: record no events or requests
}

func newEnv(t testing.TB, eo envOpts) *env {
	t.Helper()
	e := &env{p: eo.p, ev: &obstest.Recorder{}, tools: tool.New(tool.Options{}), path: eo.path}
	if e.p == nil {
		e.p = &scripted{noRecord: eo.lean}
	}
	if e.path == "" {
		e.path = filepath.Join(t.TempDir(), "beamclaw.db")
	}
	for _, tl := range eo.tools {
		if err := e.tools.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	lo := loop.Options{
		Providers: func(string) (beamclaw.Provider, string, error) { return e.p, "test-model", nil },
		Tools:     e.tools,
		Emitter:   e.ev,
	}
	if eo.lean {
		lo.Emitter = nil
	}
	if eo.loop != nil {
		eo.loop(&lo)
	}
	eng, err := loop.New(lo)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(e.path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	so := Options{Engine: eng, Persist: true, DB: db, Emitter: e.ev, IdleHibernate: -1, TTL: -1}
	if eo.lean {
		so.Emitter = nil
	}
	if eo.session != nil {
		eo.session(&so)
	}
	m, err := New(so)
	if err != nil {
		t.Fatal(err)
	}
	e.m = m
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Serve(ctx) }()
	e.cancel, e.done = cancel, done
	t.Cleanup(e.stop)
	return e
}

// stop shuts the Manager down and closes the database (idempotent).
func (e *env) stop() {
	if e.cancel == nil {
		return
	}
	e.cancel()
	<-e.done
	_ = e.db.Close()
	e.cancel = nil
}

func (e *env) send(t testing.TB, user, content string, mods ...func(*beamclaw.Inbound)) (*recorder, string) {
	t.Helper()
	rec := newRecorder()
	in := beamclaw.Inbound{Channel: "tui", UserID: user, AgentID: "default", Content: content, Route: rec,
		Origin: testOrigin}
	for _, f := range mods {
		f(&in)
	}
	runID, err := e.m.Send(context.Background(), in)
	if err != nil {
		t.Fatalf("Send(%q): %v", content, err)
	}
	return rec, runID
}

// testOrigin is where the test's messages come from, unless a test says
// otherwise.
const testOrigin = "tui:test"

func (e *env) sid(user string) string { return ID(user, "default", "tui", false) }

// waitUntil polls cond until it holds or ten seconds pass.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// roles renders a history as "role:content" lines for diffs.
func roles(h []beamclaw.Message) []string {
	out := make([]string, len(h))
	for i, m := range h {
		out[i] = string(m.Role) + ":" + m.Content
	}
	return out
}

// activeCount is how many lanes have a supervisor running (tests).
func (m *Manager) activeCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, l := range m.live {
		l.mu.Lock()
		if l.active {
			n++
		}
		l.mu.Unlock()
	}
	return n
}

// waitIdle waits until the live session id has nothing in flight: a run's
// answer reaches its route before the lane records the run finished, so a
// test that asks the cleaner to close an idle session waits for this
// first (it polls, ten seconds at most).
func (e *env) waitIdle(t testing.TB, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		e.m.mu.Lock()
		l := e.m.live[id]
		e.m.mu.Unlock()
		if l == nil {
			return
		}
		l.mu.Lock()
		idle := l.idle()
		l.mu.Unlock()
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s still busy after 10 s", id)
		}
		time.Sleep(time.Millisecond)
	}
}
