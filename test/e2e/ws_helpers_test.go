package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// dial opens a WebSocket session for user on the default agent; it is
// closed at test end.
func (r *chatRig) dial(user string) *client.Conn {
	r.t.Helper()
	c := client.NewTCP("http://"+r.addr, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := c.Dial(ctx, "default", client.DialOptions{User: user})
	if err != nil {
		r.t.Fatalf("dial /ws: %v", err)
	}
	r.t.Cleanup(func() {
		_ = conn.Close()
		c.Close()
	})
	return conn
}

// wsRun is what one WebSocket run delivered.
type wsRun struct {
	runID     string
	frames    []protocol.ServerFrame // the run's frames after its ack
	stray     []protocol.ServerFrame // frames of other runs seen meanwhile
	approvals int
	final     *protocol.ServerFrame
	err       *protocol.ServerFrame
}

// sendRun sends content and reads frames until the run's final or error
// frame; onApproval answers each approval_request (nil: fail the test).
func sendRun(t *testing.T, conn *client.Conn, content string, onApproval func(protocol.WSApproval) string) wsRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	id, err := conn.Send(ctx, content)
	if err != nil {
		t.Fatalf("send %q: %v", content, err)
	}
	var out wsRun
	for {
		var f protocol.ServerFrame
		select {
		case <-ctx.Done():
			t.Fatalf("run of %q: no final or error frame in time; frames %+v", content, out.frames)
		case fr, ok := <-conn.Events():
			if !ok {
				t.Fatalf("connection ended during run of %q: %v", content, conn.Err())
			}
			f = fr
		}
		if f.Type == protocol.FrameAck && f.ID == id {
			out.runID = f.RunID
			continue
		}
		if f.Type == protocol.FrameError && f.ID == id {
			t.Fatalf("message %q refused: %s %s", content, f.Code, f.Message)
		}
		if out.runID == "" || f.RunID != out.runID {
			out.stray = append(out.stray, f)
			continue
		}
		out.frames = append(out.frames, f)
		switch f.Type {
		case protocol.FrameApprovalRequest:
			out.approvals++
			if onApproval == nil || f.Approval == nil {
				t.Fatalf("unexpected approval_request: %+v", f.Approval)
			}
			if err := conn.Approve(f.Approval.ID, onApproval(*f.Approval)); err != nil {
				t.Fatal(err)
			}
		case protocol.FrameFinal:
			out.final = &f
			return out
		case protocol.FrameError:
			out.err = &f
			return out
		}
	}
}

// finalText is the run's final answer, failing when it ended in error.
func (w wsRun) finalText(t *testing.T) string {
	t.Helper()
	if w.final == nil {
		t.Fatalf("run ended without a final frame: %+v", w.err)
	}
	return w.final.Text
}
