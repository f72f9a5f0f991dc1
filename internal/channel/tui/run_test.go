package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// The model inside a real Bubble Tea program: typing, a streamed answer
// arriving on the connection, Ctrl-C.
func TestProgramStreamsAnswer(t *testing.T) {
	conn := newFakeConn("default", protocol.WSMessage{Role: "user", Content: "earlier question"})
	opts, _ := testOptions(&dialer{}).withDefaults()
	m := newModel(context.Background(), opts, conn)
	defer m.shutdown()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("earlier question")) },
		teatest.WithDuration(10*time.Second))
	tm.Type("what's up")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	f := conn.next(t)
	if f.Content != "what's up" {
		t.Fatalf("sent %+v", f)
	}
	conn.events <- protocol.ServerFrame{Type: "ack", ID: f.ID, RunID: "r1"}
	conn.events <- protocol.ServerFrame{Type: "chunk", RunID: "r1", Text: "All "}
	conn.events <- protocol.ServerFrame{Type: "final", RunID: "r1", Text: "All quiet here."}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(ansi.Strip(string(b)), "quiet here") },
		teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*model)
	if !final.quitting || len(final.transcript.live) != 0 {
		t.Errorf("final model: quitting=%v live=%v", final.quitting, final.transcript.live)
	}
}

// Run over raw terminal bytes: a line and Enter send a message, Ctrl-C
// returns cleanly and closes the connection.
func TestRunSendsAndQuitsOnCtrlC(t *testing.T) {
	conn := newFakeConn("default")
	d := &dialer{conns: []*fakeConn{conn}}
	inR, inW := io.Pipe()
	defer inR.Close()
	opts := testOptions(d)
	opts.In, opts.Out = inR, io.Discard
	opts.ProgramOptions = []tea.ProgramOption{tea.WithWindowSize(80, 24)}
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), opts) }()
	go func() { _, _ = inW.Write([]byte("hello daemon\r")) }()
	if f := conn.next(t); f.Type != protocol.FrameMessage || f.Content != "hello daemon" {
		t.Fatalf("sent %+v", f)
	}
	go func() { _, _ = inW.Write([]byte{0x03}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-C did not end Run")
	}
	inW.Close()
	if _, open := <-conn.events; open {
		t.Error("connection left open")
	}
}

func TestRunFailsWhenTheFirstDialFails(t *testing.T) {
	d := &dialer{err: errors.New("no beamclaw daemon is running")}
	err := Run(context.Background(), testOptions(d))
	if err == nil || !strings.Contains(err.Error(), "connect to agent default") {
		t.Fatalf("Run = %v", err)
	}
	if _, err := (Options{}).withDefaults(); err == nil {
		t.Error("options without Client or Dial accepted")
	}
}

func TestDefaultBackoff(t *testing.T) {
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
		4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for i, w := range want {
		if got := DefaultBackoff(i + 1); got != w {
			t.Errorf("attempt %d: %v, want %v", i+1, got, w)
		}
	}
}
