package control

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/loop"
	"github.com/beamclaw/beamclaw-go/internal/session"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// script is an in-test model: it answers with its steps in order, then
// says "ok".
type script struct {
	mu    sync.Mutex
	steps []beamclaw.Message
}

func (p *script) Name() string { return "script" }

func (p *script) Chat(_ context.Context, _ beamclaw.ChatRequest, onText func(string)) (beamclaw.ChatResponse, error) {
	p.mu.Lock()
	m := beamclaw.Message{Role: beamclaw.RoleAssistant, Content: "ok"}
	if len(p.steps) > 0 {
		m, p.steps = p.steps[0], p.steps[1:]
	}
	p.mu.Unlock()
	if m.Content != "" {
		onText(m.Content)
	}
	return beamclaw.ChatResponse{Message: m}, nil
}

// then queues the model's next answers: a tool call ("name" with args)
// or, for a name of "", text.
func (p *script) then(name, argsOrText string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := beamclaw.Message{Role: beamclaw.RoleAssistant, Content: argsOrText}
	if name != "" {
		m = beamclaw.Message{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{{Name: name, Args: json.RawMessage(argsOrText)}}}
	}
	p.steps = append(p.steps, m)
}

// noteTool writes nothing and reports its arguments; with ask it needs
// an approval, like the shell.
type noteTool struct {
	name string
	ask  bool
	runs atomic.Int32
}

func (t *noteTool) Spec() beamclaw.ToolSpec {
	return beamclaw.ToolSpec{Def: beamclaw.ToolDef{Name: t.name, Description: "notes",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		RequiresApproval: t.ask, MinAutonomy: beamclaw.ReadOnly, Risk: beamclaw.RiskHigh}
}

func (t *noteTool) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	t.runs.Add(1)
	return "noted " + string(inv.Args), nil
}

// live is a running session manager on a real store, its model a script.
type live struct {
	m     *session.Manager
	model *script
	db    *store.DB
}

// newLive starts a session manager with tools on a fresh store; it stops
// with the test.
func newLive(t *testing.T, tools ...beamclaw.Tool) *live {
	t.Helper()
	reg := tool.New(tool.Options{})
	for _, tl := range tools {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	l := &live{model: &script{}}
	eng, err := loop.New(loop.Options{Tools: reg,
		Providers: func(string) (beamclaw.Provider, string, error) { return l.model, "test-model", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if l.db, err = store.Open(filepath.Join(t.TempDir(), "beamclaw.db"), store.Options{}); err != nil {
		t.Fatal(err)
	}
	if l.m, err = session.New(session.Options{Engine: eng, Persist: true, DB: l.db, IdleHibernate: -1, TTL: -1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.m.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = l.db.Close()
	})
	return l
}

// events is a route that keeps a run's events.
type events struct {
	mu   sync.Mutex
	got  []beamclaw.RunEvent
	seen chan struct{} // a token per event
}

func (e *events) Deliver(ev beamclaw.RunEvent) {
	e.mu.Lock()
	e.got = append(e.got, ev)
	e.mu.Unlock()
	select {
	case e.seen <- struct{}{}:
	default: // the waiter has tokens enough to look again
	}
}

// wait returns the first event of type typ, waiting up to ten seconds.
func (e *events) wait(t *testing.T, typ beamclaw.RunEventType) beamclaw.RunEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		e.mu.Lock()
		for _, ev := range e.got {
			if ev.Type == typ {
				e.mu.Unlock()
				return ev
			}
		}
		e.mu.Unlock()
		select {
		case <-e.seen:
		case <-deadline:
			t.Fatalf("no %s event", typ)
		}
	}
}

// send hands content from user on channel (asked and answered on
// origin) to the default agent, and returns its session id and events.
func (l *live) send(t *testing.T, channel beamclaw.Channel, user, origin, content string) (string, *events) {
	t.Helper()
	ev := &events{seen: make(chan struct{}, 256)}
	in := beamclaw.Inbound{Channel: channel, UserID: user, AgentID: "default", Content: content, Route: ev, Origin: origin}
	if _, err := l.m.Send(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	return l.m.SessionID(in), ev
}
