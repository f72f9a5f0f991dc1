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
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
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
			if got := yesOn(t, other); !strings.Contains(got, "Nothing is waiting for your approval here") {
				t.Errorf("bob's /yes was answered %q", got)
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

// TestApprovalFollowsThePersonOnItsChannel (issue 24, item 3): with
// BEAMCLAW_USER the owner's one session is every channel's; an approval
// asked on /ws whose connection closed stays the /ws person's: an HTTP
// /yes and the terminal's /yes (another channel kind) are told nothing
// waits there and run nothing, and the next /ws connection is asked again
// and its answer runs the tool once.
func TestApprovalFollowsThePersonOnItsChannel(t *testing.T) {
	r := newChatRig(t, rigOptions{})
	r.h.env = append(r.h.env, "BEAMCLAW_USER=owner")
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	first := r.dial("ana")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := first.Send(ctx, `call tool write_file {"path":"orphan.txt","content":"once"}`); err != nil {
		t.Fatal(err)
	}
	asked := frameOf(t, first, protocol.FrameApprovalRequest)
	_ = first.Close()

	if got := r.chat("owner", "/yes"); !strings.Contains(got, "Nothing is waiting for your approval here") {
		t.Errorf("an HTTP /yes was answered %q", got)
	}
	if got := yesOn(t, r.localConn("owner")); !strings.Contains(got, "Nothing is waiting for your approval here") {
		t.Errorf("the terminal's /yes was answered %q", got)
	}
	file := filepath.Join(r.h.dir, "agents", "default", "orphan.txt")
	if _, err := os.Stat(file); err == nil {
		t.Fatal("the tool ran on another channel's /yes")
	}

	again := r.dial("ana")
	re := frameOf(t, again, protocol.FrameApprovalRequest)
	if re.Approval == nil || re.Approval.ID != asked.Approval.ID {
		t.Fatalf("the reconnected /ws client was asked %+v, want %+v", re.Approval, asked.Approval)
	}
	if err := again.Approve(re.Approval.ID, protocol.DecisionAllow); err != nil {
		t.Fatal(err)
	}
	if final := frameOf(t, again, protocol.FrameFinal); final.RunID != asked.RunID {
		t.Errorf("the final answer belongs to run %s, want %s", final.RunID, asked.RunID)
	}
	if b, err := os.ReadFile(file); err != nil || strings.TrimSpace(string(b)) != "once" {
		t.Errorf("the approved tool's file: %q %v", b, err)
	}
}

// yesOn sends /yes on conn and returns the text of its answer.
func yesOn(t *testing.T, conn *client.Conn) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Send(ctx, "/yes"); err != nil {
		t.Fatal(err)
	}
	return frameOf(t, conn, protocol.FrameFinal).Text
}

// TestTelegramQueuedMessageSaysWhatItWaitsOn (issue 24, item 3): a DM
// message ana sends while the bot waits for her approval is told what it
// waits on, where its answer will be (not only "typing…" until the
// approval times out); once she answers, that message becomes the
// queued message's answer.
func TestTelegramQueuedMessageSaysWhatItWaitsOn(t *testing.T) {
	r := newTGRig(t, tgOptions{autonomy: "supervised"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.pair(tgAna)
	ana := tgAna.ID
	r.tg.SendText(ana, tgAna, `call tool bash {"script":"echo queued-$((6*7))"}`)
	prompt := r.waitMessage(ana, "an approval prompt with buttons", func(m faketelegram.Message) bool {
		return m.ReplyMarkup != ""
	})
	r.tg.SendText(ana, tgAna, "and then this")
	waiting := r.waitMessage(ana, "a line saying what the queued message waits on", func(m faketelegram.Message) bool {
		p := faketelegram.PlainText(m.Text)
		return strings.Contains(p, "waits for your answer") && strings.Contains(p, "(bash)")
	})
	if n := tgCountUser(r.llm.Requests(), "and then this"); n != 0 {
		t.Errorf("the queued message reached the provider before the approval was answered")
	}
	var allow string
	for _, b := range tgButtons(t, prompt) {
		if strings.Contains(b.Text, "Allow once") {
			allow = b.Data
		}
	}
	r.tg.PressButton(ana, tgAna, prompt.ID, allow)
	r.waitMessage(ana, "the tool's answer", func(m faketelegram.Message) bool {
		return strings.Contains(faketelegram.PlainText(m.Text), "queued-42")
	})
	r.waitMessage(ana, "the queued message's answer in place of the line", func(m faketelegram.Message) bool {
		p := faketelegram.PlainText(m.Text)
		return m.ID == waiting.ID && strings.Contains(p, "and then this") && !strings.Contains(p, "waits for")
	})
}
