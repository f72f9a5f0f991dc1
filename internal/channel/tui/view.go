package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

var (
	userStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("12")).Bold(true)
	toolStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	infoStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	errorStyle   = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	statusStyle  = lipgloss.NewStyle().Foreground(lipgloss.Color("7")).Background(lipgloss.Color("236"))
	offlineStyle = lipgloss.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("11")).Bold(true)
	askStyle     = lipgloss.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("214")).Bold(true)
	gaugeColors  = [...]lipgloss.Style{
		lipgloss.NewStyle().Foreground(lipgloss.Color("10")),
		lipgloss.NewStyle().Foreground(lipgloss.Color("11")),
		lipgloss.NewStyle().Foreground(lipgloss.Color("9")),
	}
)

const inputHeight = 3

// layout sizes the viewport and input to the window.
func (m *model) layout() {
	m.input.SetWidth(max(m.width, 10))
	m.vp.SetWidth(max(m.width, 10))
	m.vp.SetHeight(max(m.height-inputHeight-2, 1))
	m.refresh()
}

// refresh re-renders the scrollback into the viewport, following the
// bottom unless the user scrolled up.
func (m *model) refresh() {
	follow := m.vp.AtBottom()
	width := max(m.width-2, 20)
	parts := make([]string, 0, len(m.transcript.entries))
	for _, e := range m.transcript.entries {
		parts = append(parts, m.renderEntry(e, width))
	}
	if l := m.work.line(); l != "" {
		parts = append(parts, infoStyle.Render(clip(l, width)))
	}
	m.vp.SetContent(strings.Join(parts, "\n"))
	if follow {
		m.vp.GotoBottom()
	}
}

func (m *model) renderEntry(e *entry, width int) string {
	if e.cache != "" && e.cacheWidth == width {
		return e.cache
	}
	var s string
	switch e.kind {
	case entryUser:
		s = userStyle.Render("you ›") + " " + lipgloss.NewStyle().Width(width-6).Render(e.text)
	case entryAssistant:
		if !e.done {
			return lipgloss.NewStyle().Width(width).Render(e.text + "▍") // streaming: never cached
		}
		s = m.md.render(e.text, width)
	case entryTool:
		s = toolStyle.Render(clip(e.text, width))
	case entryInfo:
		s = infoStyle.Width(width).Render(e.text)
	case entryError:
		s = errorStyle.Width(width).Render(e.text)
	case entryContext:
		s = gauge(e.used, e.window, e.messages, width)
	}
	e.cache, e.cacheWidth = s, width
	return s
}

// gauge draws the /context bar: tokens used against the model's window.
func gauge(used, window, messages, width int) string {
	if window <= 0 {
		return infoStyle.Render(fmt.Sprintf("Context: %s tokens used · %d messages (window unknown)", thousands(used), messages))
	}
	pct := used * 100 / window
	bar := min(max(width-50, 10), 40)
	filled := min(used*bar/window, bar)
	color := gaugeColors[0]
	switch {
	case pct >= 85:
		color = gaugeColors[2]
	case pct >= 60:
		color = gaugeColors[1]
	}
	return fmt.Sprintf("Context [%s%s] %s / %s tokens (%d%%) · %d messages",
		color.Render(strings.Repeat("█", filled)), strings.Repeat("░", bar-filled),
		thousands(used), thousands(window), pct, messages)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// status is the line under the scrollback: the agent and the connection,
// or the approval waiting for a key.
func (m *model) status() string {
	w := max(m.width, 10)
	if m.state == stateReconnecting {
		return offlineStyle.Width(w).Render(clip(fmt.Sprintf(" reconnecting… (attempt %d) %s", m.attempt, m.lastErr), w))
	}
	if len(m.asks) > 0 {
		return askStyle.Width(w).Render(clip(m.askStatus(), w))
	}
	if len(m.approvals) > 0 {
		a := m.approvals[0].req
		return askStyle.Width(w).Render(clip(fmt.Sprintf(" Approve %s? [y] allow once · [a] always · [n] deny", a.ToolName), w))
	}
	s := fmt.Sprintf(" %s · connected", m.agent)
	if n := len(m.transcript.live); n > 0 {
		s += " · answering…"
	}
	return statusStyle.Width(w).Render(clip(s, w))
}

func (m *model) View() tea.View {
	if m.quitting {
		return tea.NewView("")
	}
	body := lipgloss.JoinVertical(lipgloss.Left, m.vp.View(), m.status(), m.input.View())
	v := tea.NewView(body)
	v.AltScreen = true
	v.WindowTitle = "beamclaw · " + m.agent
	return v
}
