package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/workspace"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

// tgAt is how a group member addresses the fake's bot; tgCarol is a
// member of tgTeam besides ana and bob.
var (
	tgAt    = "@" + faketelegram.Bot.Username
	tgCarol = faketelegram.User{ID: 6161, Username: "carol_tg", Name: "Carol"}
)

// TestTelegramGroupIsItsOwnSession: in a group the bot answers only a
// message addressed to it by a member groups.members allows (paired), in
// the group, without its @name; a plain message and an unpaired member's
// mention are ignored, neither answered nor stored. The group is a
// session of its own: its history holds none of a member's DM, and the
// member's DM session none of the group's words.
func TestTelegramGroupIsItsOwnSession(t *testing.T) {
	r := newTGRig(t, tgOptions{groupMembers: "paired"})
	r.start()
	r.pair(tgAna)
	r.tg.SendText(tgAna.ID, tgAna, "my dm secret is plum")
	r.waitText(tgAna.ID, "echo: my dm secret is plum")

	r.tg.SendText(tgTeam, tgAna, "the group chatter is mango")
	r.tg.SendText(tgTeam, tgBob, tgAt+" bob was here")
	r.tg.SendText(tgTeam, tgAna, tgAt+" what is said here?")
	r.waitText(tgTeam, "echo: what is said here?") // updates are handled in order: the two before are done
	if msgs := r.tg.Messages(tgTeam); len(msgs) != 1 {
		t.Errorf("%d bot messages in the group, want only the answer to the mention:%s", len(msgs), r.dump())
	}
	if n := len(r.tg.Messages(tgBob.ID)); n != 0 {
		t.Errorf("bob got %d private messages (a pairing offer for a group message?)", n)
	}
	for _, q := range r.llm.Requests() {
		for _, text := range tgUserTexts(q) {
			if strings.Contains(text, "mango") || strings.Contains(text, "bob was here") {
				t.Errorf("an ignored group message reached the model: %q", text)
			}
		}
	}

	r.tg.SendText(tgAna.ID, tgAna, "and in private?")
	r.waitText(tgAna.ID, "echo: and in private?")

	var group, dm string
	for _, s := range r.h.sessions() {
		switch s.User {
		case "tg-group:-1001234":
			group = s.ID
		case "tg:4242":
			dm = s.ID
		}
	}
	if group == "" || dm == "" {
		t.Fatalf("sessions %+v: want one of user tg-group:-1001234 and one of tg:4242", r.h.sessions())
	}
	if got, want := tgHistory(t, r, group), []string{"what is said here?", "echo: what is said here?"}; !slices.Equal(got, want) {
		t.Errorf("the group's history is %q, want %q", got, want)
	}
	dmHistory := strings.Join(tgHistory(t, r, dm), "\n")
	if !strings.Contains(dmHistory, "plum") || strings.Contains(dmHistory, "what is said here") {
		t.Errorf("ana's DM history %q: want her DM words and none of the group's", dmHistory)
	}
}

// TestTelegramGroupApprovalByTheTriggeringMember: with groups.members
// admins, a member who is no administrator is ignored; an administrator's
// mention that calls bash asks in the group, naming her. Another
// administrator's press and /yes are answered that the approval is hers
// and change nothing; her own press runs the tool, once.
func TestTelegramGroupApprovalByTheTriggeringMember(t *testing.T) {
	r := newTGRig(t, tgOptions{autonomy: "supervised", groupMembers: "admins"})
	r.llm.SetDefault(fakellm.Rules)
	r.tg.SetAdmins(tgTeam, tgAna, tgBob)
	r.start()

	call := ` call tool bash {"script":"echo x >> grp-runs; echo grp-ran-$(wc -l < grp-runs)"}`
	r.tg.SendText(tgTeam, tgCarol, tgAt+call)
	r.tg.SendText(tgTeam, tgAna, tgAt+call)
	prompt := r.waitMessage(tgTeam, "an approval prompt with buttons", func(m faketelegram.Message) bool {
		return m.ReplyMarkup != ""
	})
	if p := faketelegram.PlainText(prompt.Text); !strings.Contains(p, "bash") || !strings.Contains(p, "For @ana_tg") {
		t.Errorf("prompt %q: want bash, for @ana_tg", p)
	}
	var allow string
	for _, b := range tgButtons(t, prompt) {
		if strings.Contains(b.Text, "Allow once") {
			allow = b.Data
		}
	}

	// Bob presses Allow, then says /yes: the bot answers each that the
	// approval is ana's. Updates are handled in order, so once the answer
	// to his /yes is there, his press has had all its effect.
	_, _, cb := r.tg.PressButton(tgTeam, tgBob, prompt.ID, allow)
	r.tg.SendText(tgTeam, tgBob, "/yes"+tgAt)
	reply := r.waitMessage(tgTeam, "an answer to bob's /yes", func(m faketelegram.Message) bool {
		p := strings.TrimSpace(faketelegram.PlainText(m.Text)) // not the run's own message (its tool status, then its answer)
		return m.ID > prompt.ID && !strings.HasPrefix(p, "🔧") && !strings.HasPrefix(p, "tool bash said")
	})
	if p := faketelegram.PlainText(reply.Text); p != "This approval is for @ana_tg." {
		t.Errorf("bob's /yes was answered %q, want that the approval is ana's", p)
	}
	r.waitTG("the answer to bob's press", func() bool {
		return len(tgCallbackAnswers(r, cb)) > 0
	})
	if got := tgCallbackAnswers(r, cb); got[0] != "This approval is for @ana_tg." {
		t.Errorf("bob's press was answered %q, want that the approval is ana's", got[0])
	}
	for _, m := range r.tg.Messages(tgTeam) {
		if m.ID == prompt.ID && (m.ReplyMarkup == "" || m.Text != prompt.Text) {
			t.Errorf("bob changed the prompt to %q (buttons %t)", faketelegram.PlainText(m.Text), m.ReplyMarkup != "")
		}
	}

	r.tg.PressButton(tgTeam, tgAna, prompt.ID, allow)
	r.waitMessage(tgTeam, "the answer with the tool's output", func(m faketelegram.Message) bool {
		return strings.HasPrefix(faketelegram.PlainText(m.Text), "tool bash said")
	})
	r.waitMessage(tgTeam, "the prompt showing ana's decision, buttons gone", func(m faketelegram.Message) bool {
		return m.ID == prompt.ID && m.ReplyMarkup == "" && strings.Contains(m.Text, "Allowed once")
	})
	if got := tgToolOutputs(r.llm.Requests()); len(got) == 0 || !strings.Contains(got[0], "grp-ran-1") {
		t.Errorf("tool outputs %q: the first should be the tool's first run", got)
	}
	var outputs []string
	for _, m := range r.tg.Messages(tgTeam) {
		if p := faketelegram.PlainText(m.Text); strings.HasPrefix(p, "tool bash said") {
			outputs = append(outputs, p)
		}
	}
	if len(outputs) != 1 || !strings.Contains(outputs[0], "grp-ran-1") {
		t.Errorf("answers %q: want one, of the tool's only run (grp-ran-1)", outputs)
	}
	if n := r.prompts(tgTeam); n != 1 {
		t.Errorf("%d approval prompts, want 1 (carol, no administrator, was ignored)", n)
	}
}

// TestTelegramGroupMemoryIsTheGroups (issue 24, item 5): what the agent
// writes to memory when a member addresses it in a group goes to the
// group's own memory, never to that member's: the group's MEMORY.md holds
// it, hers does not, her DM's search does not find it and the group's
// does.
func TestTelegramGroupMemoryIsTheGroups(t *testing.T) {
	r := newTGRig(t, tgOptions{groupMembers: "paired"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.pair(tgAna)
	r.tg.SendText(tgTeam, tgAna, tgAt+` call tool workspace_memory {"action":"append","content":"The team mascot is a capybara"}`)
	r.waitMessage(tgTeam, "the answer to the memory write", func(m faketelegram.Message) bool {
		return strings.HasPrefix(faketelegram.PlainText(m.Text), "tool workspace_memory said")
	})
	memoryOf := func(user string) string {
		b, _ := os.ReadFile(filepath.Join(r.h.dir, "people", "default", workspace.UserKey(user), "MEMORY.md"))
		return string(b)
	}
	if !strings.Contains(memoryOf("tg-group:-1001234"), "capybara") {
		t.Errorf("the group's MEMORY.md lacks what was written there: %q", memoryOf("tg-group:-1001234"))
	}
	if strings.Contains(memoryOf("tg:4242"), "capybara") {
		t.Errorf("ana's own MEMORY.md holds what was written in the group")
	}
	search := `call tool workspace_memory {"action":"search","query":"team mascot"}`
	if res := lastContent(r.tgToolResult(search).Messages); strings.Contains(res, "capybara") {
		t.Errorf("ana's DM search finds the group's memory: %q", res)
	}
	before := len(r.llm.Requests())
	r.tg.SendText(tgTeam, tgAna, tgAt+" "+search)
	r.waitLLM("the group's search result", func(reqs []fakellm.Request) bool {
		for _, q := range reqs[before:] {
			if strings.Contains(lastContent(q.Messages), "capybara") {
				return true
			}
		}
		return false
	})
}

// tgCallbackAnswers are the texts the bot answered callback query id with.
func tgCallbackAnswers(r *tgRig, id string) []string {
	var out []string
	for _, c := range r.tg.Calls("answerCallbackQuery") {
		if c.Params["callback_query_id"] == id {
			out = append(out, c.Params["text"])
		}
	}
	return out
}

// tgHistory is the user and assistant texts of a session, in order.
func tgHistory(t *testing.T, r *tgRig, id string) []string {
	t.Helper()
	var d protocol.SessionDetail
	out := r.h.must("sessions", "show", id, "--json").stdout
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("sessions show %s: %v: %s", id, err, out)
	}
	var texts []string
	for _, m := range d.Messages {
		if m.Role == "user" || m.Role == "assistant" {
			texts = append(texts, m.Content)
		}
	}
	return texts
}
