package gateway

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestWSMalformedFramesKeepConnectionOpen(t *testing.T) {
	env := startWS(t, newWSFake(), WSOptions{}, Options{})
	c := env.dial(t, nil)
	cases := []struct {
		name     string
		kind     int
		data     string
		wantCode string
	}{
		{"not json", websocket.TextMessage, "not json", protocol.CodeBadFrame},
		{"json array", websocket.TextMessage, "[1,2]", protocol.CodeBadFrame},
		{"unknown type", websocket.TextMessage, `{"type":"bogus"}`, protocol.CodeBadFrame},
		{"message before hello", websocket.TextMessage, `{"type":"message","content":"x"}`, protocol.CodeNoHello},
		{"binary", websocket.BinaryMessage, `{"type":"ping"}`, protocol.CodeBadFrame},
		{"future protocol", websocket.TextMessage, `{"type":"hello","protocol":2}`, protocol.CodeBadProtocol},
		{"control chars in user", websocket.TextMessage, `{"type":"hello","user":"a\u0007b"}`, protocol.CodeBadFrame},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := c.WriteMessage(tc.kind, []byte(tc.data)); err != nil {
				t.Fatal(err)
			}
			f := wsRead(t, c)
			if f.Type != protocol.FrameError || f.Code != tc.wantCode || f.Message == "" {
				t.Errorf("answer %+v, want error %s", f, tc.wantCode)
			}
		})
	}
	env.hello(t, c, protocol.ClientFrame{Agent: "default"})
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, ID: "e"})
	if f := wsRead(t, c); f.Code != protocol.CodeBadFrame || f.ID != "e" {
		t.Errorf("empty message answered %+v", f)
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FramePing})
	if f := wsRead(t, c); f.Type != protocol.FramePong {
		t.Errorf("after bad frames, ping answered %+v", f)
	}
}

func TestWSLocalTUIChannel(t *testing.T) {
	cases := []struct {
		name             string
		local            bool
		channel          string
		wantCh, wantUser string
	}{
		{"control socket tui", true, "tui", "tui", "local:bob"},
		{"control socket other", true, "", "ws", "ws:bob"},
		{"public tui refused", false, "tui", "ws", "ws:bob"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := newWSFake()
			env := startWS(t, fake, WSOptions{Local: tc.local}, Options{})
			c := env.dial(t, nil)
			env.hello(t, c, protocol.ClientFrame{Agent: "a", User: "bob", Channel: tc.channel})
			wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, Content: "hi"})
			wsRead(t, c) // ack
			sent, _, _ := fake.snapshot()
			if len(sent) != 1 || string(sent[0].Channel) != tc.wantCh || sent[0].UserID != tc.wantUser {
				t.Errorf("inbound %+v, want channel %s user %s", sent, tc.wantCh, tc.wantUser)
			}
		})
	}
}

func TestWSUnknownAgentAndRunError(t *testing.T) {
	fake := newWSFake()
	fake.script = func(_ beamclaw.Inbound, runID string) []beamclaw.RunEvent {
		return []beamclaw.RunEvent{{Type: beamclaw.EvError, RunID: runID, Text: "provider unavailable"}}
	}
	env := startWS(t, fake, WSOptions{KnownAgent: func(n string) bool { return n == "default" },
		UserID: func(_, id string) string { return "canonical-" + id }}, Options{})
	c := env.dial(t, nil)
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameHello, Agent: "ghost"})
	if f := wsRead(t, c); f.Type != "error" || f.Code != protocol.CodeNotFound {
		t.Fatalf("unknown agent answered %+v", f)
	}
	ready := env.hello(t, c, protocol.ClientFrame{User: "me"})
	if ready.Agent != "default" || ready.SessionID != "session-canonical-me-default" {
		t.Errorf("ready = %+v", ready)
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, ID: "m", Content: "x"})
	wsRead(t, c) // ack
	want := protocol.ServerFrame{Type: "error", RunID: "run-1", Code: protocol.CodeRunFailed, Message: "provider unavailable"}
	if d := cmp.Diff(want, wsRead(t, c)); d != "" {
		t.Errorf("run error (-want +got):\n%s", d)
	}
}

func TestWSSlowConsumerIsClosedWithoutBlockingTheSession(t *testing.T) {
	fake := newWSFake()
	big := strings.Repeat("x", 32<<10)
	fake.script = func(_ beamclaw.Inbound, runID string) []beamclaw.RunEvent {
		evs := make([]beamclaw.RunEvent, 4000) // ~128 MB: far beyond socket buffers
		for i := range evs {
			evs[i] = beamclaw.RunEvent{Type: beamclaw.EvChunk, RunID: runID, Text: big}
		}
		return append(evs, beamclaw.RunEvent{Type: beamclaw.EvFinal, RunID: runID})
	}
	env := startWS(t, fake, WSOptions{SendQueue: 8, WriteWait: 200 * time.Millisecond}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default"})
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, Content: "flood"})
	// The client reads nothing more. Every Deliver must still return.
	select {
	case <-fake.finished:
	case <-time.After(30 * time.Second):
		t.Fatal("Deliver blocked on a client that does not read")
	}
	wsWaitFor(t, "the slow connection to close", func() bool { return env.ws.Len() == 0 })
	// The client eventually sees the end of the stream: the policy close
	// frame or a reset, never a hang.
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	var err error
	for err == nil {
		_, _, err = c.ReadMessage()
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open: %v", err)
	}
}

// TestWSBurstOfChunksReachesALateReader: a run's chunks that come
// faster than the client reads (a provider or proxy that buffers, a
// loaded machine) reach it whole and in order once it reads, on a
// connection still open; a client that reads nothing at all is still
// closed (TestWSSlowConsumerIsClosedWithoutBlockingTheSession).
func TestWSBurstOfChunksReachesALateReader(t *testing.T) {
	fake := newWSFake()
	var want strings.Builder
	fake.script = func(_ beamclaw.Inbound, runID string) []beamclaw.RunEvent {
		evs := make([]beamclaw.RunEvent, 0, 5001)
		for i := range 5000 {
			w := "w" + strconv.Itoa(i) + " "
			want.WriteString(w)
			evs = append(evs, beamclaw.RunEvent{Type: beamclaw.EvChunk, RunID: runID, Text: w})
		}
		return append(evs, beamclaw.RunEvent{Type: beamclaw.EvFinal, RunID: runID, Text: "done"})
	}
	env := startWS(t, fake, WSOptions{SendQueue: 4}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default"})
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FrameMessage, Content: "burst"})
	select { // the client reads nothing until the whole run was delivered
	case <-fake.finished:
	case <-time.After(30 * time.Second):
		t.Fatal("the run was not delivered")
	}
	var got strings.Builder
	for f := wsRead(t, c); f.Type != protocol.FrameFinal; f = wsRead(t, c) {
		switch f.Type {
		case protocol.FrameChunk:
			got.WriteString(f.Text)
		case protocol.FrameAck:
		default:
			t.Fatalf("frame %+v in the run's stream", f)
		}
	}
	if got.String() != want.String() {
		t.Fatalf("the chunks read make %d bytes, want the run's %d in order", got.Len(), want.Len())
	}
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FramePing})
	if f := wsRead(t, c); f.Type != protocol.FramePong {
		t.Fatalf("after the burst, ping answered %+v", f)
	}
}

func TestWSPingPong(t *testing.T) {
	env := startWS(t, newWSFake(), WSOptions{PingInterval: 100 * time.Millisecond}, Options{})

	// A client that reads answers pings (gorilla's default handler) and
	// stays connected across many ping intervals.
	c := env.dial(t, nil)
	var pings atomic.Int32
	c.SetPingHandler(func(data string) error {
		pings.Add(1)
		return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	env.hello(t, c, protocol.ClientFrame{Agent: "default"})
	frames := make(chan protocol.ServerFrame, 4)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			var f protocol.ServerFrame
			if c.ReadJSON(&f) != nil {
				return
			}
			frames <- f
		}
	}()
	wsWaitFor(t, "three pings", func() bool { return pings.Load() >= 3 })
	wsWrite(t, c, protocol.ClientFrame{Type: protocol.FramePing})
	select {
	case f := <-frames:
		if f.Type != protocol.FramePong {
			t.Fatalf("got %+v, want pong", f)
		}
	case <-readerDone:
		t.Fatal("connection with a live client was closed")
	}

	// A client that never reads never answers pings: closed after the
	// pong wait.
	mute := env.dial(t, nil)
	wsWrite(t, mute, protocol.ClientFrame{Type: protocol.FrameHello})
	wsWaitFor(t, "the mute client to be dropped", func() bool { return env.ws.Len() == 1 })
	c.Close()
	<-readerDone
	wsWaitFor(t, "all connections to close", func() bool { return env.ws.Len() == 0 })
}

func TestWSServeShutdownClosesConnections(t *testing.T) {
	fake := newWSFake()
	env := startWS(t, fake, WSOptions{}, Options{})
	c := env.dial(t, nil)
	env.hello(t, c, protocol.ClientFrame{Agent: "default"})
	// The client keeps reading, so it answers the close handshake at once.
	readErr := make(chan error, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _, err := c.ReadMessage()
		readErr <- err
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- env.ws.Serve(ctx) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Serve returned %v", err)
	}
	if err := <-readErr; !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Errorf("client saw %v, want close 1001", err)
	}
	if _, resp, err := websocket.DefaultDialer.Dial(env.url, nil); err == nil || resp == nil || resp.StatusCode != 503 {
		t.Errorf("dial during shutdown: %v", err)
	}
}

// TestWSHeldChunksPastTheirCapCloseTheClient: a client whose writer is
// stuck on a slow socket (not yet past its write deadline) while a run's
// chunks pile up is closed as a slow consumer once 1 MiB of them waits,
// rather than held without bound; below that they are merged.
func TestWSHeldChunksPastTheirCapCloseTheClient(t *testing.T) {
	c := newWSConn(NewWS(WSOptions{SendQueue: 2}), nil, func() {})
	held := protocol.ServerFrame{Type: protocol.FrameChunk, RunID: "r", Text: strings.Repeat("x", maxHeldChunk-1)}
	if !c.merge(&held, protocol.ServerFrame{Type: protocol.FrameChunk, RunID: "r", Text: "y"}) || c.closeCode != 0 {
		t.Fatalf("a chunk within the cap: merged %d bytes, close code %d", len(held.Text), c.closeCode)
	}
	if c.merge(&held, protocol.ServerFrame{Type: protocol.FrameChunk, RunID: "other", Text: "z"}) {
		t.Fatal("another run's chunk was merged")
	}
	if !c.merge(&held, protocol.ServerFrame{Type: protocol.FrameChunk, RunID: "r", Text: "y"}) || c.closeCode != websocket.ClosePolicyViolation {
		t.Fatalf("past the cap: close code %d, want %d (slow consumer)", c.closeCode, websocket.ClosePolicyViolation)
	}
}
