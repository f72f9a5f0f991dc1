package telegram

import (
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func TestChatCommands(t *testing.T) {
	h := newHarness(t, nil, "", func(o *Options) {
		o.AllowFrom = []string{"42"}
		o.KnownAgent = func(name string) bool { return name == "default" || name == "coder" }
	})
	h.start()
	h.tg.SendText(alice.ID, alice, "/help")
	h.waitMessage(alice.ID, contains("/context — how much"))

	h.tg.SendText(alice.ID, alice, "/context")
	h.waitMessage(alice.ID, contains("Context: 1500 / 8000 tokens (18%) · 4 messages"))

	h.tg.SendText(alice.ID, alice, "/new@beamclaw_bot")
	h.waitMessage(alice.ID, contains("New session: the history is cleared."))
	h.sess.mu.Lock()
	resets := append([]string(nil), h.sess.resets...)
	h.sess.mu.Unlock()
	if len(resets) != 1 || resets[0] != "session-tg:42-default" {
		t.Errorf("resets %v", resets)
	}

	h.tg.SendText(alice.ID, alice, "/agent nobody")
	h.waitMessage(alice.ID, contains("There is no agent <b>nobody</b>."))
	h.tg.SendText(alice.ID, alice, "/agent coder")
	h.waitMessage(alice.ID, contains("Now talking to <b>coder</b>"))
	h.tg.SendText(alice.ID, alice, "hello coder")
	in := h.sess.waitSent(t, 1)[0]
	if in.AgentID != "coder" || in.Content != "hello coder" {
		t.Errorf("after /agent: %+v", in)
	}
	in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "ok"})
	h.waitMessage(alice.ID, contains("ok"))
	// No command reached the agent as a message.
	if sent := h.sess.Sent(); len(sent) != 1 {
		t.Errorf("%d messages reached the sessions, want 1", len(sent))
	}
}
