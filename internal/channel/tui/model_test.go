package tui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestHistoryScrollbackOnOpen(t *testing.T) {
	conn := newFakeConn("default",
		protocol.WSMessage{Role: "user", Content: "what is in notes.txt?"},
		protocol.WSMessage{Role: "assistant", ToolCalls: []protocol.WSToolCall{{Name: "read_file", Args: json.RawMessage(`{"path":"notes.txt"}`)}}},
		protocol.WSMessage{Role: "tool", Name: "read_file", Content: "buy milk\nand eggs"},
		protocol.WSMessage{Role: "assistant", Content: "# Notes\n\nIt says *buy milk*."},
	)
	m := newTestModel(t, &dialer{}, conn)
	mustContain(t, m.screen(), "you › what is in notes.txt?", `⚙ read_file {"path":"notes.txt"}`,
		"↳ read_file: buy milk …", "Notes", "It says", "buy milk", "default · connected")
}

func TestTypingSendsMessagesAndStreamsTheAnswer(t *testing.T) {
	conn := newFakeConn("default")
	m := newTestModel(t, &dialer{}, conn)
	typeText(m, "first line")
	press(m, ctrlJ)
	typeText(m, "second")
	press(m, altCR)
	typeText(m, "third")
	press(m, enter)
	f := conn.next(t)
	if f.Type != protocol.FrameMessage || f.ID == "" || f.Content != "first line\nsecond\nthird" {
		t.Fatalf("sent %+v", f)
	}
	if m.input.Value() != "" {
		t.Errorf("input not cleared: %q", m.input.Value())
	}
	frame(m, protocol.ServerFrame{Type: "ack", ID: f.ID, RunID: "r1"})
	frame(m, protocol.ServerFrame{Type: "chunk", RunID: "r1", Text: "Hel"})
	frame(m, protocol.ServerFrame{Type: "chunk", RunID: "r1", Text: "lo"})
	mustContain(t, m.screen(), "Hello▍", "answering…")
	frame(m, protocol.ServerFrame{Type: "tool_start", RunID: "r1", Tool: "shell", Args: json.RawMessage(`{"cmd":"ls"}`)})
	frame(m, protocol.ServerFrame{Type: "tool_result", RunID: "r1", Tool: "shell", Result: "a.txt", IsError: true})
	frame(m, protocol.ServerFrame{Type: "final", RunID: "r1", Text: "Hello **world**"})
	s := m.screen()
	mustContain(t, s, `⚙ shell {"cmd":"ls"}`, "✗ shell: a.txt", "world")
	if strings.Contains(s, "▍") || strings.Contains(s, "answering") {
		t.Errorf("finished answer still streaming:\n%s", s)
	}
	if len(m.unacked) != 0 {
		t.Errorf("acked message still pending: %+v", m.unacked)
	}
}

func TestApprovalAnsweredWithOneKeyOrSlashCommand(t *testing.T) {
	cases := []struct {
		name, keys, want string
	}{
		{"y allows once", "y", protocol.DecisionAllow},
		{"a always", "a", protocol.DecisionAlways},
		{"n denies", "n", protocol.DecisionDeny},
		{"/yes", "/yes\r", protocol.DecisionAllow},
		{"/always", "/always\r", protocol.DecisionAlways},
		{"/no", "/no\r", protocol.DecisionDeny},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn := newFakeConn("default")
			m := newTestModel(t, &dialer{}, conn)
			frame(m, protocol.ServerFrame{Type: "approval_request", RunID: "r1", Approval: &protocol.WSApproval{
				ID: "ap-1", ToolName: "shell", Args: `{"cmd":"rm -rf build"}`, Risk: "high", Prompt: "Run shell?"}})
			mustContain(t, m.screen(), "Approve shell? [y] allow once · [a] always · [n] deny",
				`Approval needed: Run shell? {"cmd":"rm -rf build"} (risk: high)`)
			for _, r := range tc.keys {
				if r == '\r' {
					press(m, enter)
					continue
				}
				typeText(m, string(r))
			}
			want := protocol.ClientFrame{Type: "approve", ApprovalID: "ap-1", Decision: tc.want}
			if d := cmp.Diff(want, conn.next(t)); d != "" {
				t.Errorf("approve frame (-want +got):\n%s", d)
			}
			if len(m.approvals) != 0 || strings.Contains(m.screen(), "[y] allow once") {
				t.Error("approval still shown after the answer")
			}
		})
	}
	// Without a waiting approval, y is just a letter.
	m := newTestModel(t, &dialer{}, newFakeConn("default"))
	typeText(m, "y")
	if m.input.Value() != "y" {
		t.Errorf("input = %q", m.input.Value())
	}
}

func TestContextGaugeAndNewSession(t *testing.T) {
	conn := newFakeConn("default", protocol.WSMessage{Role: "user", Content: "old question"})
	m := newTestModel(t, &dialer{}, conn)
	typeText(m, "/context")
	press(m, enter)
	if f := conn.next(t); f.Type != protocol.FrameContext {
		t.Fatalf("sent %+v", f)
	}
	frame(m, protocol.ServerFrame{Type: "context", UsedTokens: 6144, Window: 8192, MessageCount: 12})
	mustContain(t, m.screen(), "Context [", "6,144 / 8,192 tokens (75%) · 12 messages")

	typeText(m, "/new")
	press(m, enter)
	if f := conn.next(t); f.Type != protocol.FrameReset {
		t.Fatalf("sent %+v", f)
	}
	frame(m, protocol.ServerFrame{Type: "reset_done"})
	s := m.screen()
	mustContain(t, s, "New session: the history is cleared.")
	if strings.Contains(s, "old question") {
		t.Errorf("history still shown after /new:\n%s", s)
	}
}

func TestGauge(t *testing.T) {
	cases := []struct {
		name                   string
		used, window, messages int
		wantBar, wantText      string
	}{
		{"empty", 0, 1000, 0, strings.Repeat("░", 40), "0 / 1,000 tokens (0%)"},
		{"half", 500, 1000, 3, strings.Repeat("█", 20) + strings.Repeat("░", 20), "500 / 1,000 tokens (50%) · 3 messages"},
		{"over", 2000, 1000, 9, strings.Repeat("█", 40), "2,000 / 1,000 tokens (200%)"},
		{"unknown window", 1234567, 0, 2, "", "1,234,567 tokens used · 2 messages (window unknown)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ansi.Strip(gauge(tc.used, tc.window, tc.messages, 100))
			if !strings.Contains(got, tc.wantText) || (tc.wantBar != "" && !strings.Contains(got, "["+tc.wantBar+"]")) {
				t.Errorf("gauge = %q", got)
			}
		})
	}
}

func TestSlashCommandsHelpUnknownAndQuit(t *testing.T) {
	m := newTestModel(t, &dialer{}, newFakeConn("default"))
	for _, line := range []string{"/help", "/bogus", "/agent", "/agent default", "/yes"} {
		typeText(m, line)
		press(m, enter)
	}
	mustContain(t, m.screen(), "/context", "Unknown command /bogus", "Usage: /agent NAME",
		"Already talking to default.", "No approval is waiting.")
	typeText(m, "/quit")
	if cmd := press(m, enter); cmd == nil || !m.quitting {
		t.Fatal("/quit did not quit")
	}
}

func TestRunErrorAndRefusedMessage(t *testing.T) {
	conn := newFakeConn("default")
	m := newTestModel(t, &dialer{}, conn)
	typeText(m, "hi")
	press(m, enter)
	id := conn.next(t).ID
	frame(m, protocol.ServerFrame{Type: "error", ID: id, Code: "too_large", Message: "message too large"})
	frame(m, protocol.ServerFrame{Type: "chunk", RunID: "r2", Text: "partial"})
	frame(m, protocol.ServerFrame{Type: "error", RunID: "r2", Code: "run_failed", Message: "provider down"})
	mustContain(t, m.screen(), "Error: message too large", "partial", "Error: provider down")
	if len(m.unacked) != 0 || len(m.transcript.live) != 0 {
		t.Errorf("unacked %v live %v", m.unacked, m.transcript.live)
	}
}

func TestLostConnectionReconnectsAndResends(t *testing.T) {
	first := newFakeConn("default")
	second := newFakeConn("default", protocol.WSMessage{Role: "user", Content: "kept history"})
	d := &dialer{conns: []*fakeConn{second}}
	m := newTestModel(t, d, first)
	first.drop(errors.New("connection reset by peer"))
	_, cmd := m.Update(lostMsg{gen: m.gen, err: first.Err()})
	mustContain(t, m.screen(), "reconnecting… (attempt 1) connection reset by peer")
	typeText(m, "sent while offline")
	press(m, enter)
	mustContain(t, m.screen(), "sent while offline")
	m.Update(cmd()) // the backoff is zero: dials now
	mustContain(t, m.screen(), "default · connected", "kept history")
	f := second.next(t)
	if f.Type != protocol.FrameMessage || f.Content != "sent while offline" {
		t.Errorf("resent %+v", f)
	}
	if cmp.Diff([]string{"default"}, d.agents) != "" {
		t.Errorf("dialled %v", d.agents)
	}
}

// The wait before a reconnect attempt is the backoff, on the clock.
func TestReconnectWaitsOutTheBackoff(t *testing.T) {
	first, second := newFakeConn("default"), newFakeConn("default")
	d := &dialer{conns: []*fakeConn{second}}
	clk := clock.NewFake(time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC))
	opts, err := testOptions(d).withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	opts.Backoff = func(int) time.Duration { return 2 * time.Second }
	opts.Clock = clk
	m := newModel(context.Background(), opts, first)
	t.Cleanup(m.shutdown)
	first.drop(errors.New("connection reset by peer"))
	_, cmd := m.Update(lostMsg{gen: m.gen, err: first.Err()})
	msgs := make(chan tea.Msg, 1)
	go func() { msgs <- cmd() }()
	done := make(chan struct{})
	defer close(done)
	if !clk.WaitForWaiters(1, done) {
		t.Fatal("the redial does not wait on the clock")
	}
	clk.Advance(2*time.Second - time.Nanosecond)
	select {
	case msg := <-msgs:
		t.Fatalf("dialled before the backoff passed: %#v", msg)
	default:
	}
	clk.Advance(time.Nanosecond)
	m.Update(<-msgs)
	mustContain(t, m.screen(), "default · connected")
}

func TestAgentSwitch(t *testing.T) {
	first := newFakeConn("default", protocol.WSMessage{Role: "user", Content: "to default"})
	other := newFakeConn("coder", protocol.WSMessage{Role: "user", Content: "to coder"})
	back := newFakeConn("coder")
	d := &dialer{conns: []*fakeConn{other}}
	m := newTestModel(t, d, first)
	typeText(m, "/agent coder")
	cmd := press(m, enter)
	m.Update(cmd())
	s := m.screen()
	mustContain(t, s, "coder · connected", "to coder")
	if strings.Contains(s, "to default") {
		t.Errorf("old agent's history shown:\n%s", s)
	}
	// An agent the daemon refuses: say so and go back.
	d.err = &client.Error{Status: 400, Message: "no such agent \"ghost\""}
	typeText(m, "/agent ghost")
	msg := press(m, enter)()
	d.err, d.conns = nil, []*fakeConn{back}
	m.Update(m.dialedOrRetry(t, msg))
	mustContain(t, m.screen(), `Cannot switch to agent ghost: no such agent "ghost"`, "coder · connected")
	if d := cmp.Diff([]string{"coder", "ghost", "coder"}, d.agents, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("dialled (-want +got):\n%s", d)
	}
}

// dialedOrRetry applies a failed dial and runs the retry it schedules.
func (m *model) dialedOrRetry(t *testing.T, msg any) any {
	t.Helper()
	_, cmd := m.Update(msg)
	if cmd == nil {
		t.Fatal("no retry scheduled")
	}
	return cmd()
}

func TestShowsTheAgentWorkingBeforeItsFirstWord(t *testing.T) {
	conn := newFakeConn("default")
	m := newTestModel(t, &dialer{}, conn)
	typeText(m, "hi")
	press(m, enter)
	f := conn.next(t)
	frame(m, protocol.ServerFrame{Type: "ack", ID: f.ID, RunID: "r1"})
	mustContain(t, m.screen(), "thinking…")
	if cmd := m.startSpinner(); cmd != nil {
		t.Error("a second spinner timer was scheduled")
	}
	before := m.work.line()
	m.Update(spinMsg{})
	if m.work.line() == before {
		t.Errorf("spinner did not move: %q", before)
	}

	frame(m, protocol.ServerFrame{Type: "tool_start", RunID: "r1", Tool: "web_search"})
	mustContain(t, m.screen(), "running web_search…")
	frame(m, protocol.ServerFrame{Type: "tool_result", RunID: "r1", Tool: "web_search", Result: "ok"})
	mustContain(t, m.screen(), "thinking…")

	frame(m, protocol.ServerFrame{Type: "chunk", RunID: "r1", Text: "Hel"})
	if s := m.screen(); strings.Contains(s, "thinking…") {
		t.Errorf("spinner shown while the text streams:\n%s", s)
	}
	frame(m, protocol.ServerFrame{Type: "final", RunID: "r1", Text: "Hello"})
	if l := m.work.line(); l != "" {
		t.Errorf("spinner after the final answer: %q", l)
	}
	m.Update(spinMsg{})
	if m.work.ticking {
		t.Error("an idle screen keeps a timer")
	}
}

func TestSessionsAndResume(t *testing.T) {
	conn := newFakeConn("default")
	m := newTestModel(t, &dialer{}, conn)
	typeText(m, "/sessions")
	press(m, enter)
	if f := conn.next(t); f.Type != protocol.FrameSessions {
		t.Fatalf("sent %+v", f)
	}
	frame(m, protocol.ServerFrame{Type: protocol.FrameSessions, Sessions: []protocol.SessionInfo{
		{ID: "session-3fa9c2d1e0b4aaaa", Title: "plan the trip", Messages: 6},
		{ID: "session-77aa00bb11cc2222", Title: "invoice", Messages: 2, Archived: time.Now()},
	}})
	mustContain(t, m.screen(), "3fa9c2d1e0b4", "plan the trip", "77aa00bb11cc", "archived")
	typeText(m, "/resume 77aa")
	press(m, enter)
	if f := conn.next(t); f.Type != protocol.FrameResume || f.Session != "77aa" {
		t.Fatalf("sent %+v", f)
	}
	frame(m, protocol.ServerFrame{Type: protocol.FrameReady, SessionID: "session-77aa00bb11cc2222", Agent: "default",
		History: []protocol.WSMessage{{Role: "user", Content: "the invoice from March"}}})
	mustContain(t, m.screen(), "the invoice from March")
	if m.resumed != "77aa" {
		t.Errorf("resumed = %q", m.resumed)
	}
}
