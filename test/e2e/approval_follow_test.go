package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// frameOf waits for the first frame of type typ on conn.
func frameOf(t *testing.T, conn *client.Conn, typ string) protocol.ServerFrame {
	t.Helper()
	return nextFrame(t, conn, typ, func(f protocol.ServerFrame) bool { return f.Type == typ })
}

// TestApprovalFollowsThePerson (issue 24, item 3): an approval asked on
// /ws belongs to the person and the channel kind, not the connection: ana
// closes the connection it was asked on, reconnects, is asked again, and
// her answer runs the tool once, its answer arriving on the new
// connection; a message she sends meanwhile says what it waits on and
// runs after. Another person cannot answer it. The terminal (the same
// mechanism over the control socket) likewise.
func TestApprovalFollowsThePerson(t *testing.T) {
	for _, kind := range []string{"ws", "tui"} {
		t.Run(kind, func(t *testing.T) {
			r := newChatRig(t, rigOptions{})
			r.llm.SetDefault(fakellm.Rules)
			r.start()
			dial := func(user string) *client.Conn {
				if kind == "tui" {
					return r.localConn(user)
				}
				return r.dial(user)
			}
			first := dial("ana")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := first.Send(ctx, `call tool write_file {"path":"followed.txt","content":"once"}`); err != nil {
				t.Fatal(err)
			}
			asked := frameOf(t, first, protocol.FrameApprovalRequest)
			_ = first.Close()

			other := dial("bob")
			if err := other.Approve(asked.Approval.ID, protocol.DecisionAllow); err != nil {
				t.Fatal(err)
			}
			if f := frameOf(t, other, protocol.FrameError); f.Code != protocol.CodeNotFound {
				t.Errorf("bob answering ana's approval: %+v, want not_found", f)
			}

			again := dial("ana")
			re := frameOf(t, again, protocol.FrameApprovalRequest)
			if re.Approval == nil || re.Approval.ID != asked.Approval.ID || re.RunID != asked.RunID {
				t.Fatalf("the reconnected ana was asked %+v, want the same approval %+v", re.Approval, asked.Approval)
			}
			// A message sent meanwhile says what it waits on.
			if _, err := again.Send(ctx, "and then this"); err != nil {
				t.Fatal(err)
			}
			if w := frameOf(t, again, protocol.FrameWaiting); !strings.Contains(w.Text, "write_file") {
				t.Errorf("the queued message's waiting frame: %+v", w)
			}
			if err := again.Approve(re.Approval.ID, protocol.DecisionAllow); err != nil {
				t.Fatal(err)
			}
			final := frameOf(t, again, protocol.FrameFinal)
			if final.RunID != asked.RunID {
				t.Errorf("the final answer belongs to run %s, want %s", final.RunID, asked.RunID)
			}
			if next := frameOf(t, again, protocol.FrameFinal); !strings.Contains(next.Text, "and then this") {
				t.Errorf("the queued message's answer: %+v", next)
			}
			b, err := os.ReadFile(filepath.Join(r.h.dir, "agents", "default", "followed.txt"))
			if err != nil || strings.TrimSpace(string(b)) != "once" {
				t.Errorf("the approved tool's file: %q %v", b, err)
			}
		})
	}
}
