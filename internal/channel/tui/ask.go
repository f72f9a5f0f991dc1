package tui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/beamclaw/beamclaw-go/internal/elicit"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// askPrompt is a question a tool put to the user (an elicitation frame),
// answered field by field in the input line.
type askPrompt struct {
	runID  string
	el     protocol.WSElicitation
	form   elicit.Form
	field  int // the field being asked
	values map[string]any
}

// asked shows a new question and asks its first field.
func (m *model) asked(runID string, el protocol.WSElicitation) {
	form, err := elicit.Parse(el.Schema)
	if err != nil {
		m.transcript.add(entryError, "A question from "+el.Source+" has a bad form: "+err.Error())
		m.send(protocol.ClientFrame{Type: protocol.FrameAnswer, ElicitationID: el.ID, Action: "cancel"})
		return
	}
	m.asks = append(m.asks, askPrompt{runID: runID, el: el, form: form, values: map[string]any{}})
	msg := "❓ " + el.Source + " asks: " + el.Message
	if el.URL != "" {
		msg += "\n   Open " + el.URL + " then type /accept (or /decline)."
	} else {
		msg += "\n   Answer each field; Enter alone takes the default. /accept sends now, /decline or /cancel refuses."
	}
	m.transcript.add(entryInfo, msg)
	if len(m.asks) == 1 {
		m.promptField()
	}
}

// promptField shows the current field of the first question.
func (m *model) promptField() {
	if len(m.asks) == 0 {
		return
	}
	a := &m.asks[0]
	if a.el.URL != "" || a.field >= len(a.form.Fields) {
		return
	}
	f := a.form.Fields[a.field]
	line := "   " + f.Label()
	if f.Description != "" {
		line += " — " + f.Description
	}
	m.transcript.add(entryInfo, line)
}

// answerText handles a line typed while a question waits; it reports
// false when the line is not for the question (another command).
func (m *model) answerText(text string) (tea.Cmd, bool) {
	if len(m.asks) == 0 {
		return nil, false
	}
	switch strings.ToLower(text) {
	case "/decline":
		m.finishAsk("decline")
		return nil, true
	case "/cancel":
		m.finishAsk("cancel")
		return nil, true
	case "/accept":
		m.finishAsk("accept")
		return nil, true
	}
	if strings.HasPrefix(text, "/") {
		return nil, false
	}
	a := &m.asks[0]
	if a.el.URL != "" || a.field >= len(a.form.Fields) {
		m.transcript.add(entryInfo, "Type /accept, /decline or /cancel.")
		return nil, true
	}
	f := a.form.Fields[a.field]
	if text != "" {
		v, err := f.Value(text)
		if err != nil {
			m.transcript.add(entryError, err.Error())
			return nil, true
		}
		a.values[f.Name] = v
	} else if f.Default == nil && f.Required {
		m.transcript.add(entryError, f.Name+" needs a value.")
		return nil, true
	}
	a.field++
	if a.field < len(a.form.Fields) {
		m.promptField()
		return nil, true
	}
	m.finishAsk("accept")
	return nil, true
}

// finishAsk sends the answer to the first question and moves on.
func (m *model) finishAsk(action string) {
	a := m.asks[0]
	f := protocol.ClientFrame{Type: protocol.FrameAnswer, ElicitationID: a.el.ID, Action: action}
	if action == "accept" {
		f.Fields = a.values
	}
	if !m.send(f) {
		m.transcript.add(entryError, "Not connected; the question is still waiting.")
		return
	}
	m.asks = m.asks[1:]
	msg := map[string]string{"accept": "Answered", "decline": "Declined", "cancel": "Cancelled"}[action]
	if action == "accept" && len(a.values) > 0 {
		msg += ": " + formatValues(a.values)
	}
	m.transcript.add(entryInfo, msg+" ("+a.el.Source+")")
	m.promptField()
}

// dropAsks forgets the questions of a run that ended.
func (m *model) dropAsks(runID string) {
	kept := m.asks[:0]
	for _, a := range m.asks {
		if a.runID != runID {
			kept = append(kept, a)
		}
	}
	m.asks = kept
}

// askStatus is the status line while a question waits.
func (m *model) askStatus() string {
	a := m.asks[0]
	what := "type /accept, /decline or /cancel"
	if a.el.URL == "" && a.field < len(a.form.Fields) {
		what = a.form.Fields[a.field].Name + ": type a value, Enter for the default · /accept · /decline · /cancel"
	}
	return fmt.Sprintf(" %s asks — %s", a.el.Source, what)
}

func formatValues(v map[string]any) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, v[k]))
	}
	return strings.Join(parts, ", ")
}
