package telegram

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

// approvalScript asks for approval, then finishes once released.
func approvalScript(id string, release <-chan struct{}) func(context.Context, beamclaw.Inbound) {
	return func(ctx context.Context, in beamclaw.Inbound) {
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvToolStart, Tool: &beamclaw.ToolCall{Name: "bash"}})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalRequest, Approval: &beamclaw.ApprovalRequest{
			ID: id, ToolName: "bash", Args: `{"cmd":"rm -rf /tmp/x"}`, Risk: "high", Prompt: "Run bash?"}})
		select {
		case <-release:
		case <-ctx.Done():
			return
		}
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvToolResult})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "Done."})
	}
}

// askApproval has alice start a run that asks approval id and returns its
// prompt once shown; closing release lets the run finish.
func (h *harness) askApproval(id string, release <-chan struct{}) faketelegram.Message {
	h.t.Helper()
	h.sess.setScript(approvalScript(id, release))
	h.tg.SendText(alice.ID, alice, "clean up")
	return h.waitMessage(alice.ID, contains("Approval needed"))
}

func buttons(t *testing.T, m faketelegram.Message) []string {
	t.Helper()
	var kb models.InlineKeyboardMarkup
	if err := json.Unmarshal([]byte(m.ReplyMarkup), &kb); err != nil {
		t.Fatalf("reply_markup %q: %v", m.ReplyMarkup, err)
	}
	var data []string
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			data = append(data, b.Text+"="+b.CallbackData)
		}
	}
	return data
}

func TestApprovalButtonPress(t *testing.T) {
	h := newHarness(t, nil, "", allowAlice).start()
	release := make(chan struct{})
	p := h.askApproval("approval-7", release)
	want := []string{"✅ Allow once=ap|y|approval-7", "♾️ Always=ap|a|approval-7", "❌ Deny=ap|n|approval-7"}
	if d := cmp.Diff(want, buttons(t, p)); d != "" {
		t.Errorf("keyboard (-want +got):\n%s", d)
	}
	_, _, cbID := h.tg.PressButton(alice.ID, alice, p.ID, "ap|a|approval-7")
	h.waitMessage(alice.ID, contains("Always allowed"))
	if d := cmp.Diff([]decision{{"approval-7", beamclaw.Always}}, h.sess.Decisions()); d != "" {
		t.Errorf("decisions (-want +got):\n%s", d)
	}
	if _, err := h.tg.WaitCall(waitCtx(t), "answerCallbackQuery", func(c faketelegram.Call) bool {
		return c.Params["callback_query_id"] == cbID
	}); err != nil {
		t.Fatal(err)
	}
	close(release)
	h.waitMessage(alice.ID, func(m faketelegram.Message) bool { return m.Text == "Done." })
	if m := h.tg.Messages(alice.ID)[0]; m.ReplyMarkup != "" && strings.Contains(m.ReplyMarkup, "ap|") {
		t.Errorf("the decided prompt still has buttons: %s", m.ReplyMarkup)
	}
}

// TestApprovalPressedBeforeTheSendIsAnswered: a press that arrives
// before the bot has Telegram's answer to the prompt it sent (or when
// that answer never comes) still shows the decision on the prompt: the
// press names the prompt's message.
func TestApprovalPressedBeforeTheSendIsAnswered(t *testing.T) {
	h := newHarness(t, nil, "", allowAlice).start()
	answer := h.tg.HoldAnswer("sendMessage", func(c faketelegram.Call) bool {
		return strings.Contains(c.Params["reply_markup"], "ap|")
	})
	defer answer()
	release := make(chan struct{})
	defer close(release)
	p := h.askApproval("approval-11", release)
	h.tg.PressButton(alice.ID, alice, p.ID, "ap|y|approval-11")
	h.waitProcessed(2) // the message and the press
	if d := cmp.Diff([]decision{{"approval-11", beamclaw.Allow}}, h.sess.Decisions()); d != "" {
		t.Errorf("decisions (-want +got):\n%s", d)
	}
	h.waitMessage(alice.ID, func(m faketelegram.Message) bool { // the send is still unanswered
		return m.ID == p.ID && strings.Contains(m.Text, "Allowed once") && !strings.Contains(m.ReplyMarkup, "ap|")
	})
}

func TestApprovalExpired(t *testing.T) {
	h := newHarness(t, nil, "", allowAlice).start()
	h.sess.setDecideErr(beamclaw.E("session.Decide", beamclaw.KindNotFound, "no such approval", nil))
	release := make(chan struct{})
	defer close(release)
	p := h.askApproval("approval-8", release)
	h.tg.PressButton(alice.ID, alice, p.ID, "ap|y|approval-8")
	h.waitMessage(alice.ID, contains("Expired"))
	if _, err := h.tg.WaitCall(waitCtx(t), "answerCallbackQuery", func(c faketelegram.Call) bool {
		return strings.Contains(c.Params["text"], "expired")
	}); err != nil {
		t.Fatal(err)
	}
}

func TestApprovalAnsweredByTextAndRunEnd(t *testing.T) {
	h := newHarness(t, nil, "", allowAlice).start()
	h.sess.setScript(func(_ context.Context, in beamclaw.Inbound) {
		req := &beamclaw.ApprovalRequest{ID: "approval-9", ToolName: "curl"}
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalRequest, Approval: req})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalResult, Approval: req, Text: "deny"})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvApprovalRequest, Approval: &beamclaw.ApprovalRequest{ID: "approval-10", ToolName: "bash"}})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "Gave up."})
	})
	h.tg.SendText(alice.ID, alice, "fetch it")
	h.waitMessage(alice.ID, contains("Denied"))
	h.waitMessage(alice.ID, func(m faketelegram.Message) bool {
		return strings.Contains(m.Text, "<code>bash</code>") && strings.Contains(m.Text, "Expired")
	})
}

func TestCallbackFromStrangerRefused(t *testing.T) {
	h := newHarness(t, nil, "", allowAlice).start()
	h.tg.PressButton(stranger.ID, stranger, 1, "ap|y|approval-1")
	h.waitProcessed(1)
	if len(h.sess.Decisions()) != 0 {
		t.Errorf("a stranger's press was decided: %v", h.sess.Decisions())
	}
}

func TestLongCallbackIDsUseShortKeys(t *testing.T) {
	var a approvals
	a.m = map[string]*prompt{}
	long := "approval-" + strings.Repeat("x", 80)
	key := a.add(long, &prompt{})
	if len(callbackPrefix)+2+len(key) > maxCallbackData {
		t.Fatalf("key %q too long", key)
	}
	if id, p := a.lookup(key); id != long || p == nil {
		t.Errorf("lookup(%q) = %q, %v", key, id, p)
	}
	a.forget(long)
	if _, p := a.lookup(key); p != nil {
		t.Error("forgotten prompt still found")
	}
}
