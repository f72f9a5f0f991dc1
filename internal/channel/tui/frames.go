package tui

import (
	"fmt"
	"strings"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entryInfo
	entryError
	entryContext
)

// entry is one block of the scrollback.
type entry struct {
	kind  entryKind
	text  string
	done  bool // an assistant answer that finished (rendered as markdown)
	runID string

	used, window, messages int // entryContext

	cache      string // rendered form, valid for cacheWidth
	cacheWidth int
}

// transcript is the scrollback: entries plus the runs still streaming.
type transcript struct {
	entries []*entry
	live    map[string]*entry // run id -> its streaming answer
}

func (t *transcript) add(kind entryKind, text string) *entry {
	e := &entry{kind: kind, text: text}
	t.entries = append(t.entries, e)
	return e
}

func (t *transcript) reset() {
	t.entries, t.live = nil, nil
}

// answer returns the streaming entry of run, creating it.
func (t *transcript) answer(runID string) *entry {
	if e, ok := t.live[runID]; ok {
		return e
	}
	if t.live == nil {
		t.live = make(map[string]*entry)
	}
	e := t.add(entryAssistant, "")
	e.runID = runID
	t.live[runID] = e
	return e
}

// finish ends run's answer with its final text (authoritative over the
// chunks).
func (t *transcript) finish(runID, text string) {
	e := t.answer(runID)
	if text != "" || e.text == "" {
		e.text = text
	}
	e.done, e.cache = true, ""
	delete(t.live, runID)
}

// fail ends run with an error line in place of a half-streamed answer.
func (t *transcript) fail(runID, msg string) {
	if e, ok := t.live[runID]; ok {
		delete(t.live, runID)
		if e.text == "" {
			t.remove(e)
		} else {
			e.done, e.cache = true, ""
		}
	}
	t.add(entryError, msg)
}

func (t *transcript) remove(e *entry) {
	for i, x := range t.entries {
		if x == e {
			t.entries = append(t.entries[:i], t.entries[i+1:]...)
			return
		}
	}
}

// loadHistory replaces the scrollback with a session's history.
func (t *transcript) loadHistory(hist []protocol.WSMessage) {
	t.reset()
	for _, m := range hist {
		switch m.Role {
		case "user":
			t.add(entryUser, m.Content)
		case "assistant":
			for _, tc := range m.ToolCalls {
				t.add(entryTool, "⚙ "+tc.Name+" "+clip(string(tc.Args), 80))
			}
			if strings.TrimSpace(m.Content) != "" {
				e := t.add(entryAssistant, m.Content)
				e.done = true
			}
		case "tool":
			t.add(entryTool, "  ↳ "+m.Name+": "+clip(firstLine(m.Content), 80))
		}
	}
}

// handleFrame applies one server frame to the model.
func (m *model) handleFrame(f protocol.ServerFrame) {
	t := &m.transcript
	switch f.Type {
	case protocol.FrameReady:
		m.sessionID, m.agent = f.SessionID, f.Agent
		t.loadHistory(f.History)
		m.work.reset()
	case protocol.FrameHistory:
		t.loadHistory(f.Messages)
	case protocol.FrameAck:
		m.acked(f.ID)
		m.work.set(f.RunID, "thinking…")
	case protocol.FrameChunk:
		e := t.answer(f.RunID)
		e.text += f.Text
		m.work.set(f.RunID, "")
	case protocol.FrameToolStart:
		t.add(entryTool, "⚙ "+f.Tool+" "+clip(string(f.Args), 80))
		m.work.set(f.RunID, "running "+f.Tool+"…")
	case protocol.FrameToolResult:
		m.work.set(f.RunID, "thinking…")
		mark := "✓"
		if f.IsError {
			mark = "✗"
		}
		t.add(entryTool, fmt.Sprintf("  %s %s: %s", mark, f.Tool, clip(firstLine(f.Result), 80)))
	case protocol.FrameApprovalRequest:
		if f.Approval != nil {
			m.approvals = append(m.approvals, approvalPrompt{runID: f.RunID, req: *f.Approval})
			t.add(entryInfo, "⚠ Approval needed: "+approvalText(*f.Approval))
		}
	case protocol.FrameElicitation:
		if f.Elicitation != nil {
			m.asked(f.RunID, *f.Elicitation)
		}
	case protocol.FrameWaiting: // queued behind an approval nobody answered yet
		m.work.set(f.RunID, "waiting…")
		t.add(entryInfo, "⏸ "+f.Text)
	case protocol.FrameFinal:
		t.finish(f.RunID, f.Text)
		m.work.done(f.RunID)
		m.dropApprovals(f.RunID)
		m.dropAsks(f.RunID)
	case protocol.FrameError:
		m.frameError(f)
	case protocol.FrameContext:
		e := t.add(entryContext, "")
		e.used, e.window, e.messages = f.UsedTokens, f.Window, f.MessageCount
	case protocol.FrameSessions:
		t.add(entryInfo, sessionsText(f.Sessions, m.sessionID))
	case protocol.FrameNotice: // a scheduled job's or a heartbeat's answer
		label := "Scheduled"
		if f.JobID != "" {
			label += " (" + f.JobID + ")"
		}
		t.add(entryInfo, label+":")
		t.add(entryAssistant, f.Text)
	case protocol.FrameResetDone:
		t.reset()
		m.work.reset()
		m.approvals, m.asks = nil, nil
		t.add(entryInfo, "New session: the history is cleared.")
	}
}

func (m *model) frameError(f protocol.ServerFrame) {
	msg := "Error: " + f.Message
	if f.RunID != "" {
		m.transcript.fail(f.RunID, msg)
		m.work.done(f.RunID)
		m.dropApprovals(f.RunID)
		m.dropAsks(f.RunID)
		return
	}
	if f.ID != "" {
		m.acked(f.ID) // refused: do not send it again
	}
	m.transcript.add(entryError, msg)
}

func (m *model) acked(id string) {
	for i, p := range m.unacked {
		if p.id == id {
			m.unacked = append(m.unacked[:i], m.unacked[i+1:]...)
			return
		}
	}
}

func (m *model) dropApprovals(runID string) {
	kept := m.approvals[:0]
	for _, a := range m.approvals {
		if a.runID != runID {
			kept = append(kept, a)
		}
	}
	m.approvals = kept
}

func approvalText(a protocol.WSApproval) string {
	s := a.Prompt
	if s == "" {
		s = "run " + a.ToolName + "?"
	}
	if a.Args != "" && !strings.Contains(s, a.Args) {
		s += " " + clip(a.Args, 120)
	}
	if a.Risk != "" {
		s += " (risk: " + a.Risk + ")"
	}
	return s
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func errText(err error, fallback string) string {
	if err == nil {
		return fallback
	}
	return err.Error()
}

// sessionsText lists sessions for /sessions, marking the current one.
func sessionsText(list []protocol.SessionInfo, current string) string {
	if len(list) == 0 {
		return "No stored sessions with this agent yet."
	}
	var b strings.Builder
	b.WriteString("Your sessions (/resume ID to continue one):")
	for _, s := range list {
		mark := "  "
		if s.ID == current {
			mark = "▸ "
		}
		state := ""
		if !s.Archived.IsZero() {
			state = " · archived"
		}
		title := s.Title
		if title == "" {
			title = "(empty)"
		}
		id := strings.TrimPrefix(s.ID, "session-")
		id = id[:min(len(id), 12)]
		fmt.Fprintf(&b, "\n%s%s  %s · %d messages%s  %s", mark, id,
			s.Updated.Local().Format("2006-01-02 15:04"), s.Messages, state, clip(title, 50))
	}
	return b.String()
}
