package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

type wsDecision struct {
	Session, Approval string
	D                 beamclaw.Decision
}

// wsFake is a WSSessions whose runs play scripted events from their
// own goroutine, as the session layer's loop does.
type wsFake struct {
	script func(in beamclaw.Inbound, runID string) []beamclaw.RunEvent

	mu         sync.Mutex
	history    map[string][]beamclaw.Message
	sent       []beamclaw.Inbound
	seen       map[string]string // message id -> run id
	wsDecision []wsDecision
	resets     []string
	answers    []wsAnswer
	seq        int

	wg       sync.WaitGroup
	finished chan struct{} // one value per delivery goroutine that returned
}

func newWSFake() *wsFake {
	return &wsFake{history: map[string][]beamclaw.Message{}, seen: map[string]string{},
		finished: make(chan struct{}, 16)}
}

func (f *wsFake) SessionID(in beamclaw.Inbound) string {
	return "session-" + in.UserID + "-" + in.AgentID
}

func (f *wsFake) Send(_ context.Context, in beamclaw.Inbound) (string, error) {
	f.mu.Lock()
	if prev, ok := f.seen[in.MessageID]; ok && in.MessageID != "" {
		f.mu.Unlock()
		return prev, beamclaw.E("fake.Send", beamclaw.KindConflict, "duplicate message", nil)
	}
	f.seq++
	runID := fmt.Sprintf("run-%d", f.seq)
	f.seen[in.MessageID] = runID
	f.sent = append(f.sent, in)
	f.mu.Unlock()
	var evs []beamclaw.RunEvent
	if f.script != nil {
		evs = f.script(in, runID)
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for _, ev := range evs {
			in.Route.Deliver(ev)
		}
		select {
		case f.finished <- struct{}{}:
		default:
		}
	}()
	return runID, nil
}

func (f *wsFake) Decide(_ context.Context, sessionID, approvalID, _ string, d beamclaw.Decision) error {
	if approvalID == "missing" {
		return beamclaw.E("fake.Decide", beamclaw.KindNotFound, "no such approval", nil)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wsDecision = append(f.wsDecision, wsDecision{sessionID, approvalID, d})
	return nil
}

func (f *wsFake) Answer(_ context.Context, userID, id string, a beamclaw.ElicitAnswer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, wsAnswer{userID, id, a})
	return nil
}

type wsAnswer struct {
	user, id string
	a        beamclaw.ElicitAnswer
}

func (f *wsFake) Reset(_ context.Context, sessionID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resets = append(f.resets, sessionID)
	delete(f.history, sessionID)
	return nil
}

// UserSessions lists the fake's sessions whose id names the user and agent.
// Rejoin: the fake keeps no approvals beyond a connection.
func (f *wsFake) Rejoin(string, string, beamclaw.Route) []beamclaw.RunEvent { return nil }

func (f *wsFake) UserSessions(userID, agentID string) ([]beamclaw.SessionSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []beamclaw.SessionSummary
	for id, h := range f.history {
		if strings.Contains(id, userID) && strings.Contains(id, agentID) {
			out = append(out, beamclaw.SessionSummary{ID: id, UserID: userID, AgentID: agentID, Messages: len(h)})
		}
	}
	return out, nil
}

func (f *wsFake) History(sessionID string) ([]beamclaw.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h, ok := f.history[sessionID]
	if !ok {
		return nil, beamclaw.E("fake.History", beamclaw.KindNotFound, "no such session", nil)
	}
	return h, nil
}

func (f *wsFake) Context(_ context.Context, sessionID string) (int, int, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return 1234, 8192, len(f.history[sessionID]), nil
}

func (f *wsFake) snapshot() ([]beamclaw.Inbound, []wsDecision, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]beamclaw.Inbound(nil), f.sent...), append([]wsDecision(nil), f.wsDecision...),
		append([]string(nil), f.resets...)
}

type wsEnv struct {
	ws   *WS
	fake *wsFake
	url  string // ws://127.0.0.1:port/ws
}

// startWS serves a WS behind the full public middleware stack on
// 127.0.0.1 and runs its Serve until the test ends.
func startWS(t testing.TB, fake *wsFake, opts WSOptions, srvOpts Options) *wsEnv {
	t.Helper()
	opts.Sessions = fake
	w := NewWS(opts)
	srvOpts.Routes = append(srvOpts.Routes, w.Routes()...)
	srv := httptest.NewServer(New(srvOpts).PublicHandler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
		fake.wg.Wait()
	})
	return &wsEnv{ws: w, fake: fake, url: "ws" + strings.TrimPrefix(srv.URL, "http") + protocol.WSPath}
}

func (e *wsEnv) dial(t testing.TB, h http.Header) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial(e.url, h)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial: %v (status %d)", err, status)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func (e *wsEnv) hello(t testing.TB, c *websocket.Conn, hello protocol.ClientFrame) protocol.ServerFrame {
	t.Helper()
	hello.Type = protocol.FrameHello
	wsWrite(t, c, hello)
	f := wsRead(t, c)
	if f.Type != protocol.FrameReady {
		t.Fatalf("hello answered %+v, want ready", f)
	}
	return f
}

func wsWrite(t testing.TB, c *websocket.Conn, f protocol.ClientFrame) {
	t.Helper()
	if err := c.WriteJSON(f); err != nil {
		t.Fatalf("write %s: %v", f.Type, err)
	}
}

func wsRead(t testing.TB, c *websocket.Conn) protocol.ServerFrame {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var f protocol.ServerFrame
	if err := c.ReadJSON(&f); err != nil {
		t.Fatalf("read frame: %v", err)
	}
	return f
}

// wsWaitFor polls cond until it holds or a generous deadline passes.
func wsWaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
