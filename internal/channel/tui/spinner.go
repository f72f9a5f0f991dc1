package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// spinFrames animate the line that shows the agent is working.
var spinFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinEvery = 120 * time.Millisecond

// spinMsg advances the spinner by one frame.
type spinMsg struct{}

// activity is what the runs in flight are doing, so that the user sees
// the agent working before its first word arrives: "thinking…" from the
// acknowledgement until text streams, the tool's name while a tool runs.
type activity struct {
	runs    map[string]string // run id -> what it does ("" while its text streams)
	order   []string          // runs in the order they started
	frame   int
	ticking bool // a spinMsg is scheduled
}

func (a *activity) set(runID, what string) {
	if runID == "" {
		return
	}
	if a.runs == nil {
		a.runs = make(map[string]string)
	}
	if _, ok := a.runs[runID]; !ok {
		a.order = append(a.order, runID)
	}
	a.runs[runID] = what
}

func (a *activity) done(runID string) {
	if _, ok := a.runs[runID]; !ok {
		return
	}
	delete(a.runs, runID)
	for i, id := range a.order {
		if id == runID {
			a.order = append(a.order[:i], a.order[i+1:]...)
			break
		}
	}
}

func (a *activity) reset() { a.runs, a.order = nil, nil }

// line is the spinner line, or "" when nothing waits on the agent (no
// run in flight, or its text is streaming with its own cursor).
func (a *activity) line() string {
	for i := len(a.order) - 1; i >= 0; i-- {
		if what := a.runs[a.order[i]]; what != "" {
			return spinFrames[a.frame%len(spinFrames)] + " " + what
		}
	}
	return ""
}

// startSpinner schedules the next frame while a run waits and none is
// scheduled; an idle screen gets no timer.
func (m *model) startSpinner() tea.Cmd {
	if m.work.ticking || m.work.line() == "" {
		return nil
	}
	m.work.ticking = true
	return tea.Tick(spinEvery, func(time.Time) tea.Msg { return spinMsg{} })
}

func (m *model) spin() tea.Cmd {
	m.work.ticking = false
	m.work.frame++
	return m.startSpinner()
}
