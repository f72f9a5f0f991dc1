package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeDaemon speaks the server side of /ws just enough for the client:
// ready, ack + chunk + final, reset_done, context, and echoes approvals
// back as error frames so the test can see them; history drops the
// connection.
func fakeDaemon(t *testing.T, token string) http.Handler {
	up := websocket.Upgrader{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.WSPath || (token != "" && r.Header.Get("Authorization") != "Bearer "+token) {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"missing or invalid bearer token","type":"authentication_error"}}`))
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			var f protocol.ClientFrame
			if err := ws.ReadJSON(&f); err != nil {
				return
			}
			var out []protocol.ServerFrame
			switch f.Type {
			case protocol.FrameHello:
				if f.Agent == "ghost" {
					out = append(out, protocol.ServerFrame{Type: "error", Code: "not_found", Message: "no such agent"})
					break
				}
				out = append(out, protocol.ServerFrame{Type: "ready", SessionID: "s-" + f.User + "-" + f.Channel, Agent: f.Agent,
					History: []protocol.WSMessage{{Role: "user", Content: "earlier"}}})
			case protocol.FrameMessage:
				out = append(out, protocol.ServerFrame{Type: "ack", ID: f.ID, RunID: "r1"},
					protocol.ServerFrame{Type: "chunk", RunID: "r1", Text: "he"},
					protocol.ServerFrame{Type: "final", RunID: "r1", Text: "hello " + f.Content})
			case protocol.FrameApprove:
				out = append(out, protocol.ServerFrame{Type: "error", Message: f.ApprovalID + "=" + f.Decision})
			case protocol.FrameReset:
				out = append(out, protocol.ServerFrame{Type: "reset_done"})
			case protocol.FrameHistory: // the test's way to make the daemon vanish
				return
			case protocol.FrameContext:
				out = append(out, protocol.ServerFrame{Type: "context", UsedTokens: 5, Window: 10, MessageCount: 2})
			}
			for _, o := range out {
				if ws.WriteJSON(o) != nil {
					return
				}
			}
		}
	})
}

func next(t *testing.T, c *Conn) protocol.ServerFrame {
	t.Helper()
	select {
	case f, ok := <-c.Events():
		if !ok {
			t.Fatalf("events closed: %v", c.Err())
		}
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("no frame")
	}
	return protocol.ServerFrame{}
}

func TestDialOverUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "bc.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: fakeDaemon(t, "")}}
	srv.Start()
	defer srv.Close()
	cl := NewUnix(sock)
	defer cl.Close()
	ctx := context.Background()
	conn, err := cl.Dial(ctx, "default", DialOptions{User: "ann", Channel: "tui"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	want := protocol.ServerFrame{Type: "ready", SessionID: "s-ann-tui", Agent: "default",
		History: []protocol.WSMessage{{Role: "user", Content: "earlier"}}}
	if d := cmp.Diff(want, conn.Ready()); d != "" {
		t.Errorf("ready (-want +got):\n%s", d)
	}
	id, err := conn.Send(ctx, "you")
	if err != nil {
		t.Fatal(err)
	}
	got := []protocol.ServerFrame{next(t, conn), next(t, conn), next(t, conn)}
	wantRun := []protocol.ServerFrame{{Type: "ack", ID: id, RunID: "r1"}, {Type: "chunk", RunID: "r1", Text: "he"},
		{Type: "final", RunID: "r1", Text: "hello you"}}
	if d := cmp.Diff(wantRun, got); d != "" {
		t.Errorf("run (-want +got):\n%s", d)
	}
	steps := []struct {
		name string
		do   func() error
		want protocol.ServerFrame
	}{
		{"approve", func() error { return conn.Approve("ap1", protocol.DecisionAlways) }, protocol.ServerFrame{Type: "error", Message: "ap1=always"}},
		{"reset", conn.Reset, protocol.ServerFrame{Type: "reset_done"}},
		{"context", conn.Context, protocol.ServerFrame{Type: "context", UsedTokens: 5, Window: 10, MessageCount: 2}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if d := cmp.Diff(s.want, next(t, conn)); d != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, d)
		}
	}
	conn.Close()
	if _, ok := <-conn.Events(); ok {
		t.Error("events still open after Close")
	}
	if err := conn.Reset(); !errors.Is(err, ErrClosed) {
		t.Errorf("Reset after Close: %v", err)
	}
}

func TestDialOverTCPWithToken(t *testing.T) {
	srv := httptest.NewServer(fakeDaemon(t, "secret"))
	defer srv.Close()
	ctx := context.Background()
	bad := NewTCP(srv.URL, "wrong")
	defer bad.Close()
	_, err := bad.Dial(ctx, "default", DialOptions{})
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != http.StatusUnauthorized || ce.Message != "missing or invalid bearer token" {
		t.Fatalf("wrong token: %v", err)
	}
	good := NewTCP(srv.URL, "secret")
	defer good.Close()
	if _, err := good.Dial(ctx, "ghost", DialOptions{}); err == nil || !errors.As(err, &ce) || ce.Message != "no such agent" {
		t.Fatalf("unknown agent: %v", err)
	}
	conn, err := good.Dial(ctx, "default", DialOptions{User: "u"})
	if err != nil {
		t.Fatal(err)
	}
	// The server going away ends Events with an error.
	if err := conn.History(); err != nil {
		t.Fatal(err)
	}
	for range conn.Events() {
	}
	if conn.Err() == nil {
		t.Error("no error after the server dropped the connection")
	}
	conn.Close()
}
