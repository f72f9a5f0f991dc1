package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

// TestTelegramPairingThenStreamedAnswer: a stranger's DM gets a pairing
// code and reaches no model; once the owner approves the code, the next DM
// is answered as one message edited in place while typing shows.
func TestTelegramPairingThenStreamedAnswer(t *testing.T) {
	r := newTGRig(t, tgOptions{})
	r.start()
	ana := tgAna.ID

	code := r.strangerDM(tgAna, "hello?")
	if len(code) < 8 {
		t.Errorf("pairing code %q is shorter than 8 characters", code)
	}
	if n := len(r.llm.Requests()); n != 0 {
		t.Fatalf("a stranger's DM reached the provider (%d requests)", n)
	}
	if msgs := r.tg.Messages(ana); len(msgs) != 1 {
		t.Fatalf("the stranger got %d bot messages, want only the pairing code:%s", len(msgs), r.dump())
	}
	if strings.Contains(r.h.logs(), code) {
		t.Errorf("the pairing code %q appears in the daemon log", code)
	}
	out := r.h.must("pair", "telegram", code)
	if !strings.Contains(out.stdout, "4242") {
		t.Errorf("pair telegram: %q does not name the user", out.stdout)
	}

	// The loop streams in ~80-character pieces: an answer of several
	// hundred characters, arriving slowly, is shown in several states.
	chunks := []string{"Hello **Ana**, this answer streams in place. "}
	for i := range 6 {
		chunks = append(chunks, fmt.Sprintf("Sentence number %d arrives a little later than the one before. ", i+1))
	}
	r.llm.Script(fakellm.Reply{Chunks: chunks, ChunkDelay: 150 * time.Millisecond})
	before := len(r.tg.Messages(ana))
	r.tg.SendText(ana, tgAna, "hi")
	m := r.waitText(ana, strings.TrimSpace(strings.ReplaceAll(strings.Join(chunks, ""), "**", "")))

	if !strings.Contains(m.Text, "<b>Ana</b>") || !strings.EqualFold(m.ParseMode, "HTML") {
		t.Errorf("answer %q (parse_mode %q): want the Markdown as Telegram HTML", m.Text, m.ParseMode)
	}
	if got := len(r.tg.Messages(ana)) - before; got != 1 {
		t.Errorf("the answer took %d messages, want 1 edited in place:%s", got, r.dump())
	}
	if m.Edits < 1 {
		t.Errorf("the answer was never edited (edits %d): not streamed", m.Edits)
	}
	var edits int
	for _, c := range r.calls("editMessageText", ana) {
		if c.Params["message_id"] == fmt.Sprint(m.ID) {
			edits++
		}
	}
	if edits < 1 {
		t.Errorf("no editMessageText call for the answer message %d", m.ID)
	}
	typing := r.calls("sendChatAction", ana)
	if len(typing) == 0 || typing[0].Params["action"] != "typing" {
		t.Errorf("typing was not shown: sendChatAction calls %+v", typing)
	}
	reqs := r.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the provider got %d requests, want 1", len(reqs))
	}
	if diff := cmp.Diff([]string{"hi"}, tgUserTexts(reqs[0])); diff != "" {
		t.Errorf("user messages the model saw (-want +got):\n%s", diff)
	}
}

// TestTelegramPairListAndRevoke: pair list shows the pending and then the
// approved user; after pair revoke the user gets a pairing code again.
func TestTelegramPairListAndRevoke(t *testing.T) {
	r := newTGRig(t, tgOptions{})
	r.start()
	bob := tgBob.ID

	code := r.strangerDM(tgBob, "let me in")
	l := r.pairList()
	if len(l.Pending) != 1 || l.Pending[0].UserID != "5151" || l.Pending[0].Channel != "telegram" || len(l.Approved) != 0 {
		t.Errorf("pair list before approval: %+v", l)
	}
	r.h.must("pair", "telegram", code)
	l = r.pairList()
	if len(l.Pending) != 0 || len(l.Approved) != 1 || l.Approved[0].UserID != "5151" || l.Approved[0].Name != "bob_tg" {
		t.Errorf("pair list after approval: %+v", l)
	}
	text := r.h.must("pair", "list").stdout
	if !strings.Contains(text, "APPROVED") || !strings.Contains(text, "5151") || !strings.Contains(text, "bob_tg") {
		t.Errorf("pair list does not show the approved user:\n%s", text)
	}

	r.tg.SendText(bob, tgBob, "ping")
	r.waitText(bob, "echo: ping")

	r.h.must("pair", "revoke", "telegram", "5151")
	if l = r.pairList(); len(l.Approved) != 0 {
		t.Errorf("pair list after revoke still approves: %+v", l.Approved)
	}
	n := len(r.llm.Requests())
	again := r.strangerDM(tgBob, "still there?")
	if again == "" || again == code {
		t.Errorf("after revoke: code %q, want a fresh one (the old was %q)", again, code)
	}
	if got := len(r.llm.Requests()); got != n {
		t.Errorf("a revoked user's DM reached the provider (%d requests, was %d)", got, n)
	}
	for _, m := range r.tg.Messages(bob) {
		if strings.Contains(faketelegram.PlainText(m.Text), "still there?") {
			t.Errorf("a revoked user was answered: %q", m.Text)
		}
	}
}

// TestTelegramPhotoAndVoice: a photo reaches the model as an image part
// (the largest size under the limit), a voice note as its transcript, and
// a voice note over the limit is refused without reaching anything.
func TestTelegramPhotoAndVoice(t *testing.T) {
	r := newTGRig(t, tgOptions{})
	r.start()
	r.pair(tgAna)
	ana := tgAna.ID

	mid := bytes.Repeat([]byte{0xFF, 0xD8, 'm'}, 1000) // 3000 bytes: the largest under 4096
	r.tg.SendPhoto(ana, tgAna, "what is in this photo?", []faketelegram.Photo{
		{Width: 90, Height: 90, Data: bytes.Repeat([]byte("s"), 200)},
		{Width: 320, Height: 240, Data: mid},
		{Width: 1280, Height: 960, Data: bytes.Repeat([]byte("B"), 10000)},
	})
	reqs := r.waitLLM("the photo's request", func(q []fakellm.Request) bool {
		return tgCountUser(q, "what is in this photo?") > 0
	})
	want := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(mid)
	if got := tgImageURLs(reqs[len(reqs)-1]); len(got) != 1 || got[0] != want {
		t.Errorf("image parts of the last user message: %d, want one data: URL of the 3000-byte size (got prefixes %q)",
			len(got), tgPrefixes(got, 40))
	}
	r.waitText(ana, "echo: what is in this photo?")

	const transcript = "remind me to water the plants"
	r.llm.ScriptFor(fakellm.PathTranscriptions, fakellm.Reply{Text: transcript})
	note := []byte("OggS\x00\x02fake-opus-voice-note")
	r.tg.SendVoice(ana, tgAna, 4, note)
	r.waitLLM("the transcript as a user message", func(q []fakellm.Request) bool {
		return tgCountUser(q, transcript) == 1
	})
	r.waitText(ana, "echo: "+transcript)
	stt := tgTranscriptions(r.llm)
	if len(stt) != 1 {
		t.Fatalf("%d transcription requests, want 1", len(stt))
	}
	if s := stt[0]; s.Model != "whisper-test" || s.FileSize != len(note) || filepath.Ext(s.File) != ".ogg" ||
		s.Header.Get("Authorization") != "Bearer stt-test-key" {
		t.Errorf("transcription request: model %q file %q (%d bytes) auth %q", s.Model, s.File, s.FileSize,
			s.Header.Get("Authorization"))
	}

	n := len(r.llm.Requests())
	r.tg.SendVoice(ana, tgAna, 45, note)
	r.waitMessage(ana, "a polite refusal of a 45 s note", func(m faketelegram.Message) bool {
		return strings.Contains(m.Text, "45 seconds") && strings.Contains(m.Text, "30 seconds")
	})
	if got := len(r.llm.Requests()); got != n {
		t.Errorf("a too long voice note reached the provider (%d requests, was %d)", got, n)
	}
	if got := len(tgTranscriptions(r.llm)); got != 1 {
		t.Errorf("a too long voice note was transcribed (%d transcriptions)", got)
	}
}

// TestTelegramApprovalByButton: at supervised autonomy a bash call shows
// an inline keyboard; pressing Always runs the tool, answers the callback
// query, and the same call later runs without asking.
func TestTelegramApprovalByButton(t *testing.T) {
	r := newTGRig(t, tgOptions{autonomy: "supervised"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.pair(tgAna)
	ana := tgAna.ID

	ask := `call tool bash {"script":"echo tg-ok-$((6*7))"}`
	r.tg.SendText(ana, tgAna, ask)
	prompt := r.waitMessage(ana, "an approval prompt with buttons", func(m faketelegram.Message) bool {
		return m.ReplyMarkup != ""
	})
	buttons := tgButtons(t, prompt)
	var always tgButton
	var labels []string
	for _, b := range buttons {
		labels = append(labels, b.Text)
		if strings.Contains(b.Text, "Always") {
			always = b
		}
	}
	if len(buttons) != 3 || always.Data == "" || !strings.Contains(faketelegram.PlainText(prompt.Text), "bash") {
		t.Fatalf("prompt %q with buttons %q: want Allow once / Always / Deny for bash", prompt.Text, labels)
	}
	if got := tgToolOutputs(r.llm.Requests()); len(got) != 0 {
		t.Fatalf("the tool ran before the button was pressed: %q", got)
	}

	_, _, cbID := r.tg.PressButton(ana, tgAna, prompt.ID, always.Data)
	r.waitLLM("the tool's output in the provider's next request", func(q []fakellm.Request) bool {
		return strings.Contains(strings.Join(tgToolOutputs(q), "\n"), "tg-ok-42")
	})
	r.waitTG("answerCallbackQuery for the press", func() bool {
		for _, c := range r.tg.Calls("answerCallbackQuery") {
			if c.Params["callback_query_id"] == cbID {
				return true
			}
		}
		return false
	})
	r.waitMessage(ana, "the final answer with the output", func(m faketelegram.Message) bool {
		p := faketelegram.PlainText(m.Text)
		return strings.HasPrefix(p, "tool bash said") && strings.Contains(p, "tg-ok-42")
	})
	r.waitMessage(ana, "the prompt showing the decision, buttons gone", func(m faketelegram.Message) bool {
		return m.ID == prompt.ID && m.ReplyMarkup == "" && strings.Contains(m.Text, "Always")
	})

	// Always: the same call runs again without a prompt.
	r.tg.SendText(ana, tgAna, ask)
	r.waitLLM("the second call's output", func(q []fakellm.Request) bool {
		for _, one := range q { // the second run's request carries both results
			if strings.Count(strings.Join(tgToolOutputs([]fakellm.Request{one}), "\n"), "tg-ok-42") >= 2 {
				return true
			}
		}
		return false
	})
	r.waitTG("the second final answer", func() bool {
		n := 0
		for _, m := range r.tg.Messages(ana) {
			if strings.HasPrefix(faketelegram.PlainText(m.Text), "tool bash said") {
				n++
			}
		}
		return n == 2
	})
	if n := r.prompts(ana); n != 1 {
		t.Errorf("%d approval prompts, want 1 (Always covers the repeat)", n)
	}
}

// TestTelegramWebhook: webhook mode registers the webhook with its secret,
// refuses a wrong secret with 401, and answers an update delivered twice
// once; an allowlist keeps others out. The gateway has a token, which
// Telegram never sends: its secret header is the route's own credential.
func TestTelegramWebhook(t *testing.T) {
	r := newTGRig(t, tgOptions{webhook: true, dmPolicy: "allowlist", allowFrom: []string{"4242"}, gatewayToken: true})
	r.start()
	ana, bob := tgAna.ID, tgBob.ID

	if url, secret := r.tg.Webhook(); url != "https://example.invalid/hook" || secret != r.secret {
		t.Errorf("setWebhook url %q secret set %t, want the configured url and secret", url, secret == r.secret)
	}
	if n := len(r.tg.Calls("getUpdates")); n != 0 {
		t.Errorf("webhook mode called getUpdates %d times", n)
	}

	_, first := r.tg.SendText(ana, tgAna, "only once")
	for _, tc := range []struct {
		name, secret string
		body         []byte
		want         int
	}{
		{"wrong secret", r.secret + "x", first, 401},
		{"no secret", "", first, 401},
		{"not an update", r.secret, []byte(`{"hello":1}`), 400},
		{"delivery", r.secret, first, 200},
		{"redelivery", r.secret, first, 200},
	} {
		if got := r.postWebhook(tc.secret, tc.body); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	r.waitText(ana, "echo: only once")

	_, stranger := r.tg.SendText(bob, tgBob, "let me in")
	_, second := r.tg.SendText(ana, tgAna, "then this")
	for _, body := range [][]byte{stranger, second} {
		if got := r.postWebhook(r.secret, body); got != 200 {
			t.Errorf("status %d, want 200", got)
		}
	}
	r.waitText(ana, "echo: then this") // updates run in order: the duplicate and bob's are done

	reqs := r.llm.Requests()
	if len(reqs) != 2 || tgCountUser(reqs, "only once") != 1 {
		t.Fatalf("%d provider requests (%d for \"only once\"), want 2 and 1", len(reqs), tgCountUser(reqs, "only once"))
	}
	if diff := cmp.Diff([]string{"only once", "then this"}, tgUserTexts(reqs[1])); diff != "" {
		t.Errorf("history the model saw (-want +got):\n%s", diff)
	}
	answers := 0
	for _, m := range r.tg.Messages(ana) {
		if faketelegram.PlainText(m.Text) == "echo: only once" {
			answers++
		}
	}
	if answers != 1 {
		t.Errorf("%d answers to the update sent twice, want 1", answers)
	}
	if msgs := r.tg.Messages(bob); len(msgs) != 0 {
		t.Errorf("a user outside allow_from was answered:%s", r.dump())
	}
	logs := r.h.logs()
	if strings.Contains(logs, r.secret) || strings.Contains(logs, r.tg.Token()) {
		t.Error("the webhook secret or the bot token appears in the daemon log")
	}
}

// TestTelegramTokenNeverLogged: the bot token is in every Bot API URL, yet
// it appears nowhere in the daemon's log, at debug level, also after
// sends refused with 429 (their errors are logged as they are waited
// out) and after the Bot API goes away.
func TestTelegramTokenNeverLogged(t *testing.T) {
	r := newTGRig(t, tgOptions{})
	r.start()
	r.pair(tgAna)
	ana := tgAna.ID
	token := r.tg.Token()
	_, secretPart, _ := strings.Cut(token, ":")

	r.tg.FailNext("sendMessage", 4, 1) // the streaming show's four tries (it gives up), or the final one's (it waits on)
	r.tg.SendText(ana, tgAna, "are you there?")
	tgPollLog(t, r, "the refused sends logged", func(l string) bool { return strings.Count(l, "telegram: rate limited") >= 3 })
	r.tg.SendText(ana, tgAna, "still there?")
	r.waitText(ana, "echo: still there?")

	r.tg.Close() // the long poll breaks; its URL (with the token) is in the error
	tgPollLog(t, r, "the broken long poll logged", func(l string) bool { return strings.Contains(l, "getUpdates") })

	logs := r.h.logs()
	for _, leak := range []string{token, secretPart, strings.ReplaceAll(token, ":", "%3A")} {
		if strings.Contains(logs, leak) {
			i := strings.Index(logs, leak)
			t.Errorf("the bot token appears in the daemon log: ...%s...", logs[max(0, i-200):i])
		}
	}
}

// tgPollLog polls the daemon log until cond holds.
func tgPollLog(t *testing.T, r *tgRig, what string, cond func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(tgWait)
	for !cond(r.h.logs()) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s\n%s", what, r.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tgImageURLs are the image_url parts of a request's last user message.
func tgImageURLs(req fakellm.Request) []string {
	var out []string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		for _, p := range m.Parts {
			if p.Type == "image_url" {
				out = append(out, p.ImageURL)
			}
		}
		break
	}
	return out
}

func tgPrefixes(ss []string, n int) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s[:min(n, len(s))]
	}
	return out
}

// tgTranscriptions are the transcription requests the fake received.
func tgTranscriptions(llm *fakellm.Server) []fakellm.Request {
	var out []fakellm.Request
	for _, q := range llm.AllRequests() {
		if q.Path == fakellm.PathTranscriptions {
			out = append(out, q)
		}
	}
	return out
}

// tgToolOutputs are the tool messages of every request.
func tgToolOutputs(reqs []fakellm.Request) []string {
	var out []string
	for _, q := range reqs {
		for _, m := range q.Messages {
			if m.Role == "tool" {
				out = append(out, m.Content)
			}
		}
	}
	return out
}

// TestTelegramChatCommands: /help, /context, /new and /agent work in a
// Telegram DM as in the terminal UI, and never reach the model.
func TestTelegramChatCommands(t *testing.T) {
	r := newTGRig(t, tgOptions{})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	ana := tgAna.ID
	r.pair(tgAna)
	r.h.must("agent", "create", "coder")

	r.tg.SendText(ana, tgAna, "remember kiwi")
	r.waitText(ana, "echo: remember kiwi")
	r.tg.SendText(ana, tgAna, "/help")
	r.waitMessage(ana, "the command list", func(m faketelegram.Message) bool { return strings.Contains(m.Text, "/agent NAME") })
	r.tg.SendText(ana, tgAna, "/context")
	r.waitMessage(ana, "the context gauge", func(m faketelegram.Message) bool {
		return strings.Contains(m.Text, "Context:") && strings.Contains(m.Text, "2 messages")
	})
	r.tg.SendText(ana, tgAna, "/new")
	r.waitText(ana, "New session: the history is cleared.")
	r.tg.SendText(ana, tgAna, "/agent coder")
	r.waitMessage(ana, "the switch", func(m faketelegram.Message) bool { return strings.Contains(m.Text, "Now talking to") })
	r.tg.SendText(ana, tgAna, "hello coder")
	r.waitText(ana, "echo: hello coder")

	reqs := r.llm.Requests()
	for _, req := range reqs {
		for _, u := range tgUserTexts(req) {
			if strings.HasPrefix(u, "/") {
				t.Errorf("a command reached the model: %q", u)
			}
		}
	}
	last := reqs[len(reqs)-1]
	if texts := tgUserTexts(last); len(texts) != 1 || texts[0] != "hello coder" {
		t.Errorf("after /new the model saw %q", texts)
	}
	var list protocol.SessionList
	if err := json.Unmarshal([]byte(r.h.must("sessions", "list", "--json", "--agent", "coder").stdout), &list); err != nil || len(list.Sessions) != 1 {
		t.Errorf("coder sessions after /agent: %+v %v", list.Sessions, err)
	}
}

// TestTelegramScheduledAnswer: Telegram takes scheduled answers through
// the channel registry (telegram:<chat>): a job's answer reaches the chat;
// a target that is no chat, or a channel that takes no answers, is
// refused when the job is made, saying what would work.
func TestTelegramScheduledAnswer(t *testing.T) {
	r := newTGRig(t, tgOptions{dmPolicy: "allowlist", allowFrom: []string{"4242"}, scheduler: true})
	r.start()
	out := r.h.must("scheduler", "add", "--json", "--schedule", "in 1s", "--prompt", "water the plants",
		"--deliver", fmt.Sprintf("telegram:%d", tgAna.ID), "--user", fmt.Sprintf("tg:%d", tgAna.ID))
	if !strings.Contains(out.stdout, `"telegram:4242"`) {
		t.Fatalf("scheduler add: %s", out.stdout)
	}
	r.waitText(tgAna.ID, "echo: water the plants")

	for deliver, want := range map[string]string{
		"telegram:abc": "want telegram:<chat id> (a number) or telegram:@channel",
		"pager:7":      `no channel "pager" takes scheduled answers (channels that do: telegram, webhook`,
	} {
		k := r.h.run("scheduler", "add", "--schedule", "in 1h", "--prompt", "x", "--deliver", deliver)
		if k.code == 0 || !strings.Contains(k.stdout+k.stderr, want) {
			t.Errorf("--deliver %s: exit %d, want it refused with %q:\n%s%s", deliver, k.code, want, k.stdout, k.stderr)
		}
	}
}
