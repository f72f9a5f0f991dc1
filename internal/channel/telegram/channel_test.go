package telegram

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

var codeRe = regexp.MustCompile(`beamclaw pair telegram ([A-Z0-9]{8})`)

func TestStrangerPairsThenStreams(t *testing.T) {
	h := newHarness(t, nil, "", nil).start()
	h.tg.SendText(stranger.ID, stranger, "hello, who are you?")
	m := h.waitMessage(stranger.ID, contains("beamclaw pair telegram"))
	match := codeRe.FindStringSubmatch(faketelegram.PlainText(m.Text))
	if match == nil {
		t.Fatalf("no code in %q", m.Text)
	}
	code := match[1]
	if n := len(h.sess.Sent()); n != 0 {
		t.Fatalf("a stranger's message reached the agent (%d sends)", n)
	}
	if _, err := h.pair.Approve("telegram", code, ""); err != nil {
		t.Fatal(err)
	}

	h.sess.setScript(answer(h.tg, stranger.ID, "Hello", " there, **friend**", "!"))
	h.tg.SendText(stranger.ID, stranger, "hi again")
	in := h.sess.waitSent(t, 1)[0]
	want := beamclaw.Inbound{Channel: "telegram", UserID: "tg:666", AgentID: "default",
		MessageID: in.MessageID, Content: "hi again", Route: in.Route,
		Origin: "telegram:666"}
	if d := cmp.Diff(want, in, cmpopts.IgnoreFields(beamclaw.Inbound{}, "Route")); d != "" {
		t.Errorf("inbound (-want +got):\n%s", d)
	}
	final := h.waitMessage(stranger.ID, contains("<b>friend</b>!"))
	if final.Edits < 2 {
		t.Errorf("answer edited %d times, want streaming edits", final.Edits)
	}
	if final.Text != "Hello there, <b>friend</b>!" || final.ParseMode != "HTML" {
		t.Errorf("final message %q (%s)", final.Text, final.ParseMode)
	}
	if got := len(h.tg.Messages(stranger.ID)); got != 2 {
		t.Errorf("%d bot messages, want the pairing reply and one answer", got)
	}
	if len(h.tg.Calls("sendChatAction")) == 0 {
		t.Error("no typing action")
	}
	h.stop()
	if strings.Contains(h.logs.String(), code) {
		t.Error("the pairing code was logged")
	}
}

func TestAccessPolicies(t *testing.T) {
	group := int64(-100200)
	cases := []struct {
		name    string
		mutate  func(*Options)
		chat    int64
		from    faketelegram.User
		wantIn  bool
		replies int
	}{
		{"allowlist empty admits nobody", func(o *Options) { o.DMPolicy = pairing.PolicyAllowlist }, alice.ID, alice, false, 0},
		{"allowlist by username", func(o *Options) {
			o.DMPolicy, o.AllowFrom = pairing.PolicyAllowlist, []string{"@Alice"}
		}, alice.ID, alice, true, 0},
		{"open", func(o *Options) { o.DMPolicy = pairing.PolicyOpen }, alice.ID, alice, true, 0},
		{"group ignored by default", func(o *Options) { o.DMPolicy = pairing.PolicyOpen }, group, alice, false, 0},
		{"group allowed", func(o *Options) {
			o.DMPolicy, o.Groups = pairing.PolicyOpen, Groups{Enabled: true, Allow: []string{"-100200"}, Trigger: TriggerAll}
		}, group, alice, true, 0},
		{"stranger in group gets no code", func(o *Options) {
			o.Groups = Groups{Enabled: true}
		}, group, stranger, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, "", tc.mutate).start()
			h.tg.SendText(tc.chat, tc.from, "ping")
			h.tg.SendText(tc.chat, tc.from, "ping")
			h.waitProcessed(2)
			h.stop()
			want := 0
			if tc.wantIn {
				want = 2
			}
			if got := len(h.sess.Sent()); got != want {
				t.Errorf("%d messages reached the agent, want %d", got, want)
			}
			if got := len(h.tg.Messages(tc.chat)); got != tc.replies {
				t.Errorf("%d replies, want %d", got, tc.replies)
			}
		})
	}
}

func TestCanonicalUserAndPairedAgent(t *testing.T) {
	h := newHarness(t, nil, "", func(o *Options) { o.UserID = func(string) string { return "local:owner" } })
	p, _, err := h.pair.Request("telegram", "42", "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.pair.Approve("telegram", p.Code, "mom"); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.tg.SendText(alice.ID, alice, "hi")
	in := h.sess.waitSent(t, 1)[0]
	if in.UserID != "local:owner" || in.AgentID != "mom" {
		t.Errorf("user %q agent %q, want local:owner and mom", in.UserID, in.AgentID)
	}
	in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "ok"})
	h.waitMessage(alice.ID, contains("ok"))
}

func TestSendErrorIsShown(t *testing.T) {
	h := newHarness(t, nil, "", func(o *Options) { o.AllowFrom = []string{"42"} })
	h.start()
	h.sess.setScript(func(_ context.Context, in beamclaw.Inbound) {
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvChunk, Text: "partial"})
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvError, Text: "The model is unavailable <now>."})
	})
	h.tg.SendText(alice.ID, alice, "hi")
	h.waitMessage(alice.ID, contains("⚠️ The model is unavailable &lt;now&gt;."))
}
