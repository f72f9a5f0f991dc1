package telegram

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

// The group of these tests, and a second member of it.
var (
	team = int64(-100200)
	bob  = faketelegram.User{ID: 77, Username: "bob", Name: "Bob"}
)

// at is how a member addresses the fake's bot.
const at = "@beamclaw_test_bot"

// inGroup lets the bot answer in team with members paired by allow_from:
// alice is, bob and the stranger are not.
func inGroup(more func(*Options)) func(*Options) {
	return func(o *Options) {
		o.AllowFrom = []string{"42"}
		o.Groups = Groups{Enabled: true, Allow: []string{"-100200"}}
		if more != nil {
			more(o)
		}
	}
}

// A group is a session of its own: a member's mention goes to the
// group's session user (never the member's, not even the canonical user
// BEAMCLAW_USER makes of every member), without the bot's @name, with the
// member's approval origin, to the channel's agent; the answer goes to
// the group.
func TestGroupIsASessionOfItsOwn(t *testing.T) {
	h := newHarness(t, nil, "", inGroup(func(o *Options) {
		o.UserID = func(string) string { return "local:owner" }
	})).start()
	h.tg.SendText(team, alice, "what is on today, "+at+"?")
	in := h.sess.waitSent(t, 1)[0]
	want := beamclaw.Inbound{Channel: beamclaw.ChannelTelegram, UserID: "tg-group:-100200", AgentID: "default",
		Origin: "telegram:-100200:42", Content: "what is on today,?"}
	got := beamclaw.Inbound{Channel: in.Channel, UserID: in.UserID, AgentID: in.AgentID, Origin: in.Origin, Content: in.Content}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("inbound (-want +got):\n%s", d)
	}
	in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "A stand-up."})
	h.waitMessage(team, contains("A stand-up."))
	if n := len(h.tg.Messages(alice.ID)); n != 0 {
		t.Errorf("%d messages in alice's private chat, want none", n)
	}

	// A DM of the same member stays her own session.
	h.tg.SendText(alice.ID, alice, "and for me?")
	if in := h.sess.waitSent(t, 2)[1]; in.UserID != "local:owner" || in.Origin != "telegram:42" {
		t.Errorf("the DM went to user %q origin %q, want local:owner and telegram:42", in.UserID, in.Origin)
	}
}

// With groups.trigger mention, only messages addressed to the bot reach
// the agent: @its_name, a command addressed to it, a reply to one of its
// messages; not a plain message, another bot's @name or a bare command.
// With trigger all, every message does.
func TestGroupTrigger(t *testing.T) {
	cases := []struct {
		name    string
		trigger string
		text    string
		want    string // the content the agent gets; "" = ignored
	}{
		{"plain message ignored", TriggerMention, "lunch anyone?", ""},
		{"another bot's name ignored", TriggerMention, "@other_helper_bot lunch?", ""},
		{"bare command ignored", TriggerMention, "/yes", ""},
		{"mention first", TriggerMention, at + " lunch?", "lunch?"},
		{"mention in the middle", TriggerMention, "so " + at + " lunch?", "so lunch?"},
		{"mention any case", TriggerMention, "@BeamClaw_Test_Bot lunch?", "lunch?"},
		{"after wide characters", TriggerMention, "🍕🍕 " + at + " lunch?", "🍕🍕 lunch?"},
		{"every message with all", TriggerAll, "lunch anyone?", "lunch anyone?"},
		{"mention stripped with all", TriggerAll, at + " lunch?", "lunch?"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, "", inGroup(func(o *Options) { o.Groups.Trigger = tc.trigger })).start()
			h.tg.SendText(team, alice, tc.text)
			h.waitProcessed(1)
			h.stop()
			var got []string
			for _, in := range h.sess.Sent() {
				got = append(got, in.Content)
			}
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("contents the agent got (-want +got):\n%s", d)
			}
			if n := len(h.tg.Messages(team)); n != 0 {
				t.Errorf("%d bot messages in the group, want none", n)
			}
		})
	}
}

// A reply to one of the bot's messages addresses it; a reply to a
// member's does not. A command addressed to the bot serves the group's
// own session.
func TestGroupReplyAndCommand(t *testing.T) {
	h := newHarness(t, nil, "", inGroup(nil)).start()
	h.tg.SendText(team, alice, at+" hi")
	in := h.sess.waitSent(t, 1)[0]
	in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvFinal, Text: "Hello."})
	answer := h.waitMessage(team, contains("Hello."))
	h.tg.SendReply(team, alice, answer.ID, "and then?")
	if in := h.sess.waitSent(t, 2)[1]; in.Content != "and then?" || in.UserID != "tg-group:-100200" {
		t.Errorf("reply to the bot: content %q user %q", in.Content, in.UserID)
	}
	h.tg.SendText(team, alice, "/new@beamclaw_test_bot")
	h.waitMessage(team, contains("New session"))
	if d := cmp.Diff([]string{"session-tg-group:-100200-default"}, h.sess.Resets()); d != "" {
		t.Errorf("resets (-want +got):\n%s", d)
	}
	if n := len(h.sess.Sent()); n != 2 {
		t.Errorf("%d messages reached the agent, want 2", n)
	}
}

// groups.members says who may talk to the bot in a group: paired (the DM
// gate's users), admins (the chat's administrators, asked of Telegram
// and cached for a while) or anyone. Others are ignored without a word.
func TestGroupMembers(t *testing.T) {
	cases := []struct {
		name    string
		members string
		admins  []faketelegram.User
		from    faketelegram.User
		in      bool
	}{
		{"paired member", MembersPaired, nil, alice, true},
		{"unpaired member", MembersPaired, nil, bob, false},
		{"anyone", MembersAnyone, nil, stranger, true},
		{"administrator", MembersAdmins, []faketelegram.User{bob}, bob, true},
		{"creator", MembersAdmins, []faketelegram.User{bob, stranger}, bob, true},
		{"paired but no administrator", MembersAdmins, []faketelegram.User{bob}, alice, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, "", inGroup(func(o *Options) { o.Groups.Members = tc.members }))
			h.tg.SetAdmins(team, tc.admins...)
			h.start()
			h.tg.SendText(team, tc.from, at+" hi")
			h.waitProcessed(1)
			h.stop()
			if got := len(h.sess.Sent()) == 1; got != tc.in {
				t.Errorf("reached the agent: %t, want %t", got, tc.in)
			}
			if n := len(h.tg.Messages(team)) + len(h.tg.Messages(tc.from.ID)); n != 0 {
				t.Errorf("%d bot messages, want none (no pairing offer in a group either)", n)
			}
		})
	}
}

// A group's administrators are asked for once, then again only after
// adminsFor; a member made administrator meanwhile is let in then.
func TestGroupAdminsCached(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	h := newHarness(t, nil, "", inGroup(func(o *Options) { o.Groups.Members, o.Clock = MembersAdmins, clk }))
	h.tg.SetAdmins(team, alice)
	h.start()
	h.tg.SendText(team, alice, at+" one")
	h.tg.SendText(team, bob, at+" two")
	h.waitProcessed(2)
	h.tg.SetAdmins(team, alice, bob)
	h.tg.SendText(team, bob, at+" three")
	h.waitProcessed(3)
	if n := len(h.tg.Calls("getChatAdministrators")); n != 1 {
		t.Errorf("getChatAdministrators called %d times for three messages, want 1", n)
	}
	clk.Advance(adminsFor)
	h.tg.SendText(team, bob, at+" four")
	h.waitProcessed(4)
	var got []string
	for _, in := range h.sess.Sent() {
		got = append(got, in.Content)
	}
	if d := cmp.Diff([]string{"one", "four"}, got); d != "" {
		t.Errorf("contents the agent got (-want +got):\n%s", d)
	}
}

// An approval asked in a group names the member whose message started
// the run, and only their press decides it (for the group's session, from
// their origin): another member's press is answered that the approval is
// theirs and changes nothing, nor does another member's /yes.
func TestGroupApprovalOnlyByItsMember(t *testing.T) {
	h := newHarness(t, nil, "", inGroup(func(o *Options) { o.Groups.Members = MembersAnyone })).start()
	release := make(chan struct{})
	defer close(release)
	h.sess.setScript(approvalScript("approval-g", release))
	h.tg.SendText(team, alice, at+" clean up")
	p := h.waitMessage(team, contains("Approval needed"))
	if plain := faketelegram.PlainText(p.Text); !strings.Contains(plain, "For @alice") {
		t.Errorf("the prompt %q does not name @alice", plain)
	}

	_, _, cb := h.tg.PressButton(team, bob, p.ID, "ap|y|approval-g")
	h.waitProcessed(2)
	if _, err := h.tg.WaitCall(waitCtx(t), "answerCallbackQuery", func(c faketelegram.Call) bool {
		return c.Params["callback_query_id"] == cb && c.Params["text"] == "This approval is for @alice."
	}); err != nil {
		t.Errorf("bob's press was not answered that the approval is alice's: %v", err)
	}
	h.tg.SendText(team, bob, "/yes@beamclaw_test_bot")
	h.waitMessage(team, contains("This approval is for @alice."))
	if d := h.sess.Decisions(); len(d) != 0 {
		t.Fatalf("another member decided: %v", d)
	}
	for _, m := range h.tg.Messages(team) {
		if m.ID == p.ID && (m.Text != p.Text || m.ReplyMarkup != p.ReplyMarkup) {
			t.Errorf("bob's press changed the prompt to %q %q", m.Text, m.ReplyMarkup)
		}
	}

	h.tg.PressButton(team, alice, p.ID, "ap|y|approval-g")
	h.waitMessage(team, contains("Allowed once"))
	if d := cmp.Diff([]decision{{"approval-g", beamclaw.Allow}}, h.sess.Decisions()); d != "" {
		t.Errorf("decisions (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"tg-group:-100200 telegram:-100200:42"}, h.sess.Deciders()); d != "" {
		t.Errorf("user and origin of the decision (-want +got):\n%s", d)
	}
	if n := len(h.sess.Sent()); n != 1 {
		t.Errorf("%d messages reached the sessions, want 1 (bob's /yes is not one)", n)
	}
}

// A tool's question in a group names the member who started the run and
// takes only their answer, for the group's session.
func TestGroupQuestionOnlyByItsMember(t *testing.T) {
	h := newHarness(t, nil, "", inGroup(func(o *Options) { o.Groups.Members = MembersAnyone })).start()
	release := make(chan struct{})
	defer close(release)
	h.sess.setScript(questionScript("el-g", `{"type":"object","properties":{"size":{"type":"string","enum":["S","M"]}}}`, release))
	h.tg.SendText(team, alice, at+" buy a shirt")
	q := h.waitMessage(team, contains("Which size?"))
	if !strings.Contains(faketelegram.PlainText(q.Text), "For @alice") {
		t.Errorf("the question %q does not name @alice", q.Text)
	}
	_, _, cb := h.tg.PressButton(team, bob, q.ID, "el|v0|el-g")
	if _, err := h.tg.WaitCall(waitCtx(t), "answerCallbackQuery", func(c faketelegram.Call) bool {
		return c.Params["callback_query_id"] == cb && c.Params["text"] == "This question is for @alice."
	}); err != nil {
		t.Errorf("bob's press was not refused: %v", err)
	}
	h.tg.PressButton(team, alice, q.ID, "el|v1|el-g")
	h.waitMessage(team, contains("✅ Answered"))
	want := []qAnswer{{"tg-group:-100200", "el-g", beamclaw.ElicitAnswer{Action: "accept", Content: map[string]any{"size": "M"}}}}
	if d := cmp.Diff(want, h.sess.Answers(), cmp.AllowUnexported(qAnswer{})); d != "" {
		t.Errorf("answers (-want +got):\n%s", d)
	}
}

// A group keeps its own /agent choice, apart from its members' own.
func TestGroupAgentChoice(t *testing.T) {
	h := newHarness(t, nil, "", inGroup(func(o *Options) {
		o.KnownAgent = func(name string) bool { return name == "default" || name == "coder" }
	})).start()
	h.tg.SendText(alice.ID, alice, "/agent coder")
	h.waitMessage(alice.ID, contains("Now talking to <b>coder</b>"))
	h.tg.SendText(team, alice, at+" hi")
	if in := h.sess.waitSent(t, 1)[0]; in.AgentID != "default" {
		t.Errorf("the group talks to %q after a member's /agent in a DM, want default", in.AgentID)
	}
	h.tg.SendText(team, alice, "/agent@beamclaw_test_bot coder")
	h.waitMessage(team, contains("Now talking to <b>coder</b>"))
	h.tg.SendText(team, alice, at+" again")
	if in := h.sess.waitSent(t, 2)[1]; in.AgentID != "coder" {
		t.Errorf("the group talks to %q after its /agent coder", in.AgentID)
	}
}

func TestStripMention(t *testing.T) {
	c := &Channel{bot: botIdentity{id: 9, name: "my_bot"}}
	cases := []struct{ text, want string }{
		{"@my_bot hello", "hello"},
		{"hello @my_bot", "hello"},
		{"hello @my_bot there", "hello there"},
		{"/new@my_bot", "/new"},
		{"/agent@my_bot coder", "/agent coder"},
		{"ünïcødé 🙂 @my_bot ok", "ünïcødé 🙂 ok"},
		{"@someone_else hi", "@someone_else hi"},
		{"no mention", "no mention"},
	}
	for _, tc := range cases {
		msg := &models.Message{Text: tc.text, Entities: mentionEntities(tc.text)}
		if got := c.unmention(msg).Text; got != tc.want {
			t.Errorf("unmention(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	// A text mention (a user without a username) of the bot itself.
	msg := &models.Message{Text: "Bot, hi", Entities: []models.MessageEntity{
		{Type: models.MessageEntityTypeTextMention, Offset: 0, Length: 3, User: &models.User{ID: 9}}}}
	if got := c.unmention(msg).Text; got != ", hi" {
		t.Errorf("unmention of a text mention = %q", got)
	}
}

// mentionEntities marks @names and commands the way Telegram does.
func mentionEntities(text string) []models.MessageEntity {
	var out []models.MessageEntity
	u := []rune(text)
	for i := 0; i < len(u); i++ {
		if u[i] != '@' && u[i] != '/' {
			continue
		}
		j := i + 1
		for j < len(u) && (u[j] == '_' || u[j] == '@' && u[i] == '/' || u[j] >= 'a' && u[j] <= 'z') {
			j++
		}
		kind := models.MessageEntityTypeMention
		if u[i] == '/' {
			kind = models.MessageEntityTypeBotCommand
		}
		off := utf16Len(string(u[:i]))
		out = append(out, models.MessageEntity{Type: kind, Offset: off, Length: utf16Len(string(u[i:j]))})
		i = j
	}
	return out
}

// In a group, a message queued behind another member's approval names
// the member it waits on (the session's text says "your answer", which
// only the member who started the run can give); a message of that
// member keeps the session's text.
func TestGroupQueuedMessageNamesWhoseApproval(t *testing.T) {
	h := newHarness(t, nil, "", inGroup(func(o *Options) { o.Groups.Members = MembersAnyone })).start()
	release := make(chan struct{})
	defer close(release)
	ask := approvalScript("approval-q", release)
	const yours = "This message waits for your answer to the approval asked earlier (bash)."
	h.sess.setScript(func(ctx context.Context, in beamclaw.Inbound) {
		if strings.HasSuffix(in.Content, "clean up") {
			ask(ctx, in)
			return
		}
		in.Route.Deliver(beamclaw.RunEvent{Type: beamclaw.EvWaiting, Text: yours})
	})
	h.tg.SendText(team, alice, at+" clean up")
	h.waitMessage(team, contains("Approval needed"))

	h.tg.SendText(team, bob, at+" and mine?")
	line := h.waitMessage(team, contains("waits until"))
	if plain := faketelegram.PlainText(line.Text); !strings.Contains(plain, "@alice answers the approval") || strings.Contains(plain, "your answer") {
		t.Errorf("bob's queued message says %q, want that it waits on @alice", plain)
	}
	h.tg.SendText(team, alice, at+" and then?")
	h.waitMessage(team, contains(yours))
}
