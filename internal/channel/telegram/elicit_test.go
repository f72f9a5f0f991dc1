package telegram

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

func questionScript(id string, schema string, release <-chan struct{}) func(context.Context, beamclaw.Inbound) {
	return func(ctx context.Context, in beamclaw.Inbound) {
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvElicitation, Elicit: &beamclaw.Elicitation{
			ID: id, Source: "mcp:shop", Message: "Which size?", Schema: json.RawMessage(schema)}})
		select {
		case <-release:
		case <-ctx.Done():
			return
		}
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "Ordered."})
	}
}

func (f *fakeSessions) Answers() []qAnswer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]qAnswer(nil), f.answers...)
}

// TestQuestionButtonsAndTextReply: a tool's question shows its field with
// one button per choice and Accept/Decline/Cancel; a button answers it;
// the next question is answered by a text reply, which is not sent to
// the agent as a message.
func TestQuestionButtonsAndTextReply(t *testing.T) {
	h := newHarness(t, nil, "", allowAlice).start()
	release := make(chan struct{})
	defer close(release)
	h.sess.setScript(questionScript("el-1", `{"type":"object","properties":{"size":{"type":"string","enum":["S","M"]}}}`, release))
	h.tg.SendText(alice.ID, alice, "buy a shirt")
	q := h.waitMessage(alice.ID, contains("Which size?"))
	want := []string{"S=el|v0|el-1", "M=el|v1|el-1", "✅ Accept defaults=el|a|el-1", "❌ Decline=el|d|el-1", "✖️ Cancel=el|c|el-1"}
	if d := cmp.Diff(want, buttons(t, q)); d != "" {
		t.Errorf("keyboard (-want +got):\n%s", d)
	}
	h.tg.PressButton(alice.ID, alice, q.ID, "el|v1|el-1")
	h.waitMessage(alice.ID, contains("✅ Answered"))
	user := "tg:" + strconv.FormatInt(alice.ID, 10)
	if d := cmp.Diff([]qAnswer{{user, "el-1", beamclaw.ElicitAnswer{Action: "accept", Content: map[string]any{"size": "M"}}}},
		h.sess.Answers(), cmp.AllowUnexported(qAnswer{})); d != "" {
		t.Errorf("answers (-want +got):\n%s", d)
	}

	h.sess.setScript(questionScript("el-2", `{"type":"object","properties":{"qty":{"type":"integer"},"gift":{"type":"boolean"}}}`, release))
	h.tg.SendText(alice.ID, alice, "and socks")
	h.waitMessage(alice.ID, contains("field=value"))
	sentBefore := len(h.sess.Sent())
	h.tg.SendText(alice.ID, alice, "qty=2\ngift=yes")
	h.waitMessage(alice.ID, func(m faketelegram.Message) bool { return contains("✅ Answered")(m) && contains("qty")(m) })
	got := h.sess.Answers()
	if len(got) != 2 || !cmp.Equal(got[1].a, beamclaw.ElicitAnswer{Action: "accept", Content: map[string]any{"qty": int64(2), "gift": true}}) {
		t.Errorf("text answer = %+v", got)
	}
	if n := len(h.sess.Sent()); n != sentBefore {
		t.Errorf("the answer was also sent to the agent (%d messages, want %d)", n, sentBefore)
	}
}
