package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// teatest watches for SIGINT in a goroutine that never ends.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/charmbracelet/x/exp/teatest/v2.NewTestModel.func2"))
}

// fakeConn is a Conn whose frames the test pushes and whose sent frames
// the test reads.
type fakeConn struct {
	ready  protocol.ServerFrame
	events chan protocol.ServerFrame
	sent   chan protocol.ClientFrame

	once sync.Once
	mu   sync.Mutex
	err  error
}

func newFakeConn(agent string, hist ...protocol.WSMessage) *fakeConn {
	return &fakeConn{
		ready:  protocol.ServerFrame{Type: protocol.FrameReady, SessionID: "session-" + agent, Agent: agent, History: hist},
		events: make(chan protocol.ServerFrame, 64),
		sent:   make(chan protocol.ClientFrame, 64),
	}
}

func (f *fakeConn) Ready() protocol.ServerFrame         { return f.ready }
func (f *fakeConn) Events() <-chan protocol.ServerFrame { return f.events }

func (f *fakeConn) SendFrame(_ context.Context, fr protocol.ClientFrame) error {
	select {
	case f.sent <- fr:
		return nil
	default:
		return client.ErrClosed
	}
}

func (f *fakeConn) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *fakeConn) Close() error { f.drop(nil); return nil }

// drop ends the connection as a daemon going away would.
func (f *fakeConn) drop(err error) {
	f.once.Do(func() {
		f.mu.Lock()
		f.err = err
		f.mu.Unlock()
		close(f.events)
	})
}

func (f *fakeConn) next(t *testing.T) protocol.ClientFrame {
	t.Helper()
	select {
	case fr := <-f.sent:
		return fr
	case <-time.After(10 * time.Second):
		t.Fatal("no frame sent")
	}
	return protocol.ClientFrame{}
}

// dialer hands out the queued conns and records the agents dialled.
type dialer struct {
	mu     sync.Mutex
	conns  []*fakeConn
	agents []string
	err    error
}

func (d *dialer) dial(_ context.Context, agent string) (Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.agents = append(d.agents, agent)
	if d.err != nil {
		return nil, d.err
	}
	c := d.conns[0]
	d.conns = d.conns[1:]
	return c, nil
}

func testOptions(d *dialer) Options {
	return Options{Dial: d.dial, Agent: "default", User: "ann", Style: "ascii",
		Backoff: func(int) time.Duration { return 0 }}
}

// newTestModel builds a sized model on conn; the test drives Update.
func newTestModel(t *testing.T, d *dialer, conn *fakeConn) *model {
	t.Helper()
	opts, err := testOptions(d).withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(context.Background(), opts, conn)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	t.Cleanup(m.shutdown)
	return m
}

func (m *model) screen() string { return ansi.Strip(m.View().Content) }

func typeText(m *model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func press(m *model, k tea.KeyPressMsg) tea.Cmd {
	_, cmd := m.Update(k)
	return cmd
}

var (
	enter = tea.KeyPressMsg{Code: tea.KeyEnter}
	ctrlJ = tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}
	altCR = tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
)

func frame(m *model, f protocol.ServerFrame) { m.Update(frameMsg{gen: m.gen, f: f}) }

func mustContain(t *testing.T, screen string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(screen, w) {
			t.Errorf("screen lacks %q:\n%s", w, screen)
		}
	}
}
