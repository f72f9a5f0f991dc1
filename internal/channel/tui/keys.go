package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

const helpText = `Commands:
  /context       how much of the model's context window the session uses
  /new           start a new session (clears the history)
  /sessions      your sessions with this agent (archived ones too)
  /resume ID     continue one of them (a prefix of its id will do)
  /agent NAME    talk to another agent
  /yes /no /always  answer the waiting approval (or press y, n, a)
  /accept /decline /cancel  answer a tool's question (fields are typed one by one)
  /help          this help
  /quit          leave (or Ctrl-C)
Keys: Enter sends · Alt+Enter or Ctrl+J adds a line · PgUp/PgDn scroll`

func (m *model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "ctrl+c":
		return m.quit()
	case "enter":
		text := strings.TrimSpace(m.input.Value())
		m.input.Reset()
		if cmd, ok := m.answerText(text); ok {
			return cmd
		}
		if text == "" {
			return nil
		}
		return m.submit(text)
	case "pgup", "pgdown", "ctrl+u", "ctrl+d":
		var cmd tea.Cmd
		m.vp, cmd = m.vp.Update(k)
		return cmd
	}
	// One key answers an approval while the input is empty (and no
	// question waits for typed values).
	if len(m.approvals) > 0 && len(m.asks) == 0 && m.input.Value() == "" {
		switch k.String() {
		case "y":
			return m.decide(protocol.DecisionAllow)
		case "a":
			return m.decide(protocol.DecisionAlways)
		case "n":
			return m.decide(protocol.DecisionDeny)
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

func (m *model) quit() tea.Cmd {
	m.quitting = true
	m.shutdown()
	return tea.Quit
}

// submit handles a line the user sent: a slash command or a message.
func (m *model) submit(text string) tea.Cmd {
	if strings.HasPrefix(text, "/") {
		return m.command(text)
	}
	id := client.NewMessageID()
	m.unacked = append(m.unacked, pendingMsg{id: id, content: text})
	m.transcript.add(entryUser, text)
	m.send(protocol.ClientFrame{Type: protocol.FrameMessage, ID: id, Content: text})
	m.vp.GotoBottom()
	return nil
}

func (m *model) command(line string) tea.Cmd {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch strings.ToLower(name) {
	case "/quit", "/exit", "/q":
		return m.quit()
	case "/help", "/?":
		m.transcript.add(entryInfo, helpText)
	case "/yes", "/y", "/allow":
		return m.decide(protocol.DecisionAllow)
	case "/always":
		return m.decide(protocol.DecisionAlways)
	case "/no", "/n", "/deny":
		return m.decide(protocol.DecisionDeny)
	case "/context":
		m.request(protocol.ClientFrame{Type: protocol.FrameContext})
	case "/new", "/reset":
		m.request(protocol.ClientFrame{Type: protocol.FrameReset})
	case "/sessions":
		m.request(protocol.ClientFrame{Type: protocol.FrameSessions})
	case "/resume":
		if arg == "" || strings.ContainsAny(arg, " \t") {
			m.transcript.add(entryError, "Usage: /resume ID (/sessions lists them)")
			return nil
		}
		m.resumed = arg
		m.request(protocol.ClientFrame{Type: protocol.FrameResume, Session: arg})
	case "/agent":
		if arg == "" || strings.ContainsAny(arg, " \t") {
			m.transcript.add(entryError, "Usage: /agent NAME (now talking to "+m.agent+")")
			return nil
		}
		if arg == m.agent {
			m.transcript.add(entryInfo, "Already talking to "+arg+".")
			return nil
		}
		return m.switchAgent(arg)
	default:
		m.transcript.add(entryError, "Unknown command "+name+"; /help lists them.")
	}
	return nil
}

// request sends a frame whose answer arrives later, or says why not.
func (m *model) request(f protocol.ClientFrame) {
	if !m.send(f) {
		m.transcript.add(entryError, "Not connected; try again when the status says connected.")
	}
}

// decide answers the oldest waiting approval.
func (m *model) decide(decision string) tea.Cmd {
	if len(m.approvals) == 0 {
		m.transcript.add(entryInfo, "No approval is waiting.")
		return nil
	}
	a := m.approvals[0]
	if !m.send(protocol.ClientFrame{Type: protocol.FrameApprove, ApprovalID: a.req.ID, Decision: decision}) {
		m.transcript.add(entryError, "Not connected; the approval is still waiting.")
		return nil
	}
	m.approvals = m.approvals[1:]
	verb := map[string]string{protocol.DecisionAllow: "Allowed once", protocol.DecisionAlways: "Always allowed",
		protocol.DecisionDeny: "Denied"}[decision]
	m.transcript.add(entryInfo, verb+": "+a.req.ToolName)
	return nil
}
