package tui

import (
	"context"
	"errors"
	"sync"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// link is one connection and the goroutine that writes its frames in
// order, so that the UI never waits on the network.
type link struct {
	conn Conn
	gen  int
	out  chan protocol.ClientFrame
	once sync.Once
}

const outbox = 64

func startLink(ctx context.Context, conn Conn, gen int) *link {
	l := &link{conn: conn, gen: gen, out: make(chan protocol.ClientFrame, outbox)}
	go func() {
		for f := range l.out {
			_ = conn.SendFrame(ctx, f) // a failed write shows up as a lost connection
		}
	}()
	return l
}

func (l *link) close() {
	l.once.Do(func() {
		close(l.out)
		_ = l.conn.Close()
	})
}

type connState int

const (
	stateOnline connState = iota
	stateReconnecting
)

// pendingMsg is a message sent but not yet acknowledged; it is sent again,
// with the same id, after a reconnect.
type pendingMsg struct{ id, content string }

type approvalPrompt struct {
	runID string
	req   protocol.WSApproval
}

// model is the Bubble Tea model. Its methods run on the program's
// goroutine only.
type model struct {
	ctx    context.Context
	cancel context.CancelFunc
	opts   Options

	agent     string
	sessionID string
	link      *link
	gen       int
	state     connState
	attempt   int
	lastErr   string
	switching string // agent being switched to ("" = none)
	resumed   string // the session /resume chose; resumed again after a reconnect

	transcript transcript
	unacked    []pendingMsg
	approvals  []approvalPrompt
	asks       []askPrompt // questions tools put to the user (ask.go)
	work       activity    // runs in flight and what each is doing (spinner.go)
	notices    []string    // shown after the next ready replaces the scrollback

	width, height int
	vp            viewport.Model
	input         textarea.Model
	md            *markdown
	quitting      bool
}

// Messages the model's commands produce.
type (
	frameMsg struct {
		gen int
		f   protocol.ServerFrame
	}
	lostMsg struct {
		gen int
		err error
	}
	dialedMsg struct {
		gen   int
		agent string
		conn  Conn
		err   error
	}
)

func newModel(ctx context.Context, opts Options, conn Conn) *model {
	ctx, cancel := context.WithCancel(ctx)
	in := textarea.New()
	in.Placeholder = "Message (Enter sends, Alt+Enter or Ctrl+J for a new line, /help)"
	in.ShowLineNumbers = false
	in.Prompt = "┃ "
	in.SetHeight(3)
	st := textarea.DefaultDarkStyles()
	st.Cursor.Blink = false // no timer redrawing an idle screen
	in.SetStyles(st)
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"))
	in.Focus()
	m := &model{ctx: ctx, cancel: cancel, opts: opts, agent: opts.Agent,
		vp: viewport.New(), input: in, md: newMarkdown(opts.Style), width: 80, height: 24}
	m.vp.SoftWrap = true
	m.vp.KeyMap = viewport.KeyMap{
		PageDown:     key.NewBinding(key.WithKeys("pgdown")),
		PageUp:       key.NewBinding(key.WithKeys("pgup")),
		HalfPageUp:   key.NewBinding(key.WithKeys("ctrl+u")),
		HalfPageDown: key.NewBinding(key.WithKeys("ctrl+d")),
	}
	m.adopt(conn)
	m.layout()
	return m
}

// adopt makes conn the live connection and shows its session.
func (m *model) adopt(conn Conn) {
	m.gen++
	m.link = startLink(m.ctx, conn, m.gen)
	m.state, m.attempt, m.lastErr = stateOnline, 0, ""
	m.handleFrame(conn.Ready())
	if m.resumed != "" {
		m.send(protocol.ClientFrame{Type: protocol.FrameResume, Session: m.resumed})
	}
	for _, n := range m.notices {
		m.transcript.add(entryError, n)
	}
	m.notices = nil
	for _, p := range m.unacked {
		m.transcript.add(entryUser, p.content)
		m.send(protocol.ClientFrame{Type: protocol.FrameMessage, ID: p.id, Content: p.content})
	}
}

func (m *model) shutdown() {
	m.cancel()
	if m.link != nil {
		m.link.close()
	}
}

// send queues a frame on the live link; it reports false when there is
// no link or its outbox is full.
func (m *model) send(f protocol.ClientFrame) bool {
	if m.link == nil || m.state != stateOnline {
		return false
	}
	select {
	case m.link.out <- f:
		return true
	default:
		return false
	}
}

func (m *model) Init() tea.Cmd {
	return tea.Batch(m.listen(), m.input.Focus())
}

// listen waits for the next frame of the live connection.
func (m *model) listen() tea.Cmd {
	l := m.link
	return func() tea.Msg {
		f, ok := <-l.conn.Events()
		if !ok {
			return lostMsg{gen: l.gen, err: l.conn.Err()}
		}
		return frameMsg{gen: l.gen, f: f}
	}
}

// redial waits for the backoff of the next attempt, then dials agent.
func (m *model) redial(agent string) tea.Cmd {
	m.attempt++
	delay := m.opts.Backoff(m.attempt)
	ctx, dial, gen, clk := m.ctx, m.opts.Dial, m.gen, m.opts.Clock
	return func() tea.Msg {
		t := clk.NewTimer(delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil
		case <-t.C():
		}
		dctx, cancel := context.WithTimeout(ctx, dialTimeout)
		defer cancel()
		conn, err := dial(dctx, agent)
		return dialedMsg{gen: gen, agent: agent, conn: conn, err: err}
	}
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
	case tea.KeyPressMsg:
		cmd = m.handleKey(msg)
	case frameMsg:
		if msg.gen == m.gen {
			m.handleFrame(msg.f)
			cmd = tea.Batch(m.listen(), m.startSpinner())
		}
	case lostMsg:
		cmd = m.lost(msg)
	case dialedMsg:
		cmd = m.dialed(msg)
	case spinMsg:
		cmd = m.spin()
	default:
		m.input, cmd = m.input.Update(msg)
	}
	m.refresh()
	return m, cmd
}

func (m *model) lost(msg lostMsg) tea.Cmd {
	if msg.gen != m.gen || m.quitting {
		return nil
	}
	m.link.close()
	m.state = stateReconnecting
	m.lastErr = errText(msg.err, "connection lost")
	return m.redial(m.agent)
}

func (m *model) dialed(msg dialedMsg) tea.Cmd {
	if msg.gen != m.gen || m.quitting {
		if msg.conn != nil {
			_ = msg.conn.Close()
		}
		return nil
	}
	if msg.err != nil {
		m.lastErr = errText(msg.err, "dial failed")
		var ce *client.Error
		if m.switching != "" && errors.As(msg.err, &ce) && ce.Status/100 == 4 {
			m.notices = append(m.notices, "Cannot switch to agent "+m.switching+": "+ce.Message)
			m.switching = ""
			m.attempt = 0
			return m.redial(m.agent)
		}
		return m.redial(msg.agent)
	}
	if m.switching != "" {
		m.agent, m.switching = msg.agent, ""
	}
	m.adopt(msg.conn)
	return m.listen()
}

// switchAgent drops the connection and dials name.
func (m *model) switchAgent(name string) tea.Cmd {
	if m.link != nil {
		m.link.close()
	}
	m.gen++
	m.switching = name
	m.state = stateReconnecting
	m.lastErr = "switching to agent " + name
	m.approvals, m.unacked, m.asks = nil, nil, nil
	m.attempt, m.resumed = 0, ""
	return m.redial(name)
}
