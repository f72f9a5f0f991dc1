package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/faketelegram"
)

// tgWait bounds every wait of the Telegram tests (the race detector and a
// shared machine make the daemon slow, never this slow).
const tgWait = 30 * time.Second

// tgOptions shape the config of a tgRig.
type tgOptions struct {
	webhook   bool     // mode webhook (else long_poll)
	dmPolicy  string   // "" = pairing
	allowFrom []string // gateway.channels.telegram.allow_from
	autonomy  string   // core.autonomy_level and channel_autonomy.telegram ("" = default)
	// gatewayToken sets gateway.auth.token: Telegram's webhook POSTs carry
	// only their secret header, never the gateway's bearer token.
	gatewayToken bool
	scheduler    bool // scheduler.enabled
	// groupMembers turns group chats on (every group, trigger mention)
	// with this groups.members ("" = groups off).
	groupMembers string
}

// tgRig is one daemon with the Telegram channel enabled, the fake Bot API
// and the fake model provider it talks to.
type tgRig struct {
	t      *testing.T
	h      *home
	llm    *fakellm.Server
	tg     *faketelegram.Server
	hc     *http.Client
	addr   string // the daemon's HTTP host:port once started
	secret string // the webhook secret (webhook mode)
}

// Telegram users of the tests: in a DM the chat id is the user id. tgTeam
// is a group chat they are both in.
var (
	tgAna  = faketelegram.User{ID: 4242, Username: "ana_tg", Name: "Ana"}
	tgBob  = faketelegram.User{ID: 5151, Username: "bob_tg", Name: "Bob"}
	tgTeam = int64(-1001234)
)

// newTGRig makes a home whose config enables the Telegram channel against
// a fresh fake Bot API and points the model provider and the voice
// transcription at a fresh fakellm. start starts the daemon.
func newTGRig(t *testing.T, o tgOptions) *tgRig {
	t.Helper()
	llm := fakellm.New(t)
	tg := faketelegram.New(t)
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)
	r := &tgRig{t: t, llm: llm, tg: tg, hc: hc}
	r.h = newHome(t, tgConfig(llm.URL(), tg.URL(), o))
	r.h.env = append(r.h.env, "TELEGRAM_BOT_TOKEN="+tg.Token(), "TG_STT_KEY=stt-test-key")
	if o.gatewayToken {
		r.h.env = append(r.h.env, "BC_GATEWAY_TOKEN="+canarySecret(t, "gwtok", 40))
	}
	if o.webhook {
		r.secret = canarySecret(t, "whsec", 24)
		r.h.env = append(r.h.env, "TG_SECRET="+r.secret)
	}
	return r
}

// tgConfig renders config.yaml for a rig.
func tgConfig(llmURL, tgURL string, o tgOptions) string {
	var b strings.Builder
	b.WriteString("core:\n  default_provider: fake\n")
	if o.autonomy != "" {
		fmt.Fprintf(&b, "  autonomy_level: %s\n  channel_autonomy:\n    telegram: %s\n", o.autonomy, o.autonomy)
	}
	fmt.Fprintf(&b, "  providers:\n    fake: {base_url: %q, model: fake-model, max_retries: 0}\n", llmURL)
	b.WriteString("gateway:\n  http:\n    addr: \"127.0.0.1:0\"\n")
	if o.gatewayToken {
		b.WriteString("  auth:\n    token: {env: BC_GATEWAY_TOKEN}\n")
	}
	b.WriteString("  channels:\n    telegram:\n")
	b.WriteString("      enabled: true\n      token: {env: TELEGRAM_BOT_TOKEN}\n")
	fmt.Fprintf(&b, "      api_url: %q\n", tgURL)
	if o.webhook {
		b.WriteString("      mode: webhook\n      webhook_url: \"https://example.invalid/hook\"\n")
		b.WriteString("      webhook_secret: {env: TG_SECRET}\n")
	} else {
		b.WriteString("      mode: long_poll\n")
	}
	policy := o.dmPolicy
	if policy == "" {
		policy = "pairing"
	}
	fmt.Fprintf(&b, "      dm_policy: %s\n", policy)
	if len(o.allowFrom) > 0 {
		fmt.Fprintf(&b, "      allow_from: [%s]\n", strings.Join(quoteAll(o.allowFrom), ", "))
	}
	if o.groupMembers != "" {
		fmt.Fprintf(&b, "      groups: {enabled: true, trigger: mention, members: %s}\n", o.groupMembers)
	}
	b.WriteString("      edit_interval_ms: 50\n")
	b.WriteString("      photo: {enabled: true, max_size_bytes: 4096}\n")
	fmt.Fprintf(&b, "      voice: {enabled: true, max_duration_seconds: 30, stt_base_url: %q, stt_model: whisper-test, stt_api_key: {env: TG_STT_KEY}}\n", llmURL)
	b.WriteString("memory:\n  embedding:\n    enabled: false\n")
	if o.scheduler {
		b.WriteString("scheduler:\n  enabled: true\n")
	}
	b.WriteString("obs:\n  log:\n    level: debug\n")
	return b.String()
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// start starts the daemon and waits until the channel has set itself up
// with the fake (deleteWebhook in long-poll mode, setWebhook in webhook
// mode).
func (r *tgRig) start() {
	r.t.Helper()
	s := r.h.start()
	r.addr = s.HTTPAddr
	setup := "deleteWebhook"
	if r.secret != "" {
		setup = "setWebhook"
	}
	ctx, cancel := context.WithTimeout(context.Background(), tgWait)
	defer cancel()
	if _, err := r.tg.WaitCall(ctx, setup, nil); err != nil {
		r.t.Fatalf("the channel never called %s: %v\n%s", setup, err, r.logTail())
	}
}

// logTail is the end of the daemon log, for failure messages.
func (r *tgRig) logTail() string {
	l := r.h.logs()
	if len(l) > 4000 {
		l = l[len(l)-4000:]
	}
	return "daemon log (tail):\n" + l
}

// waitTG waits until cond holds, re-checking after every change the fake
// Bot API sees (calls, updates, edits).
func (r *tgRig) waitTG(what string, cond func() bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tgWait)
	defer cancel()
	if err := r.tg.Wait(ctx, func([]faketelegram.Call) bool { return cond() }); err != nil {
		r.t.Fatalf("waiting for %s: %v\nbot messages: %s\n%s", what, err, r.dump(), r.logTail())
	}
}

// waitLLM polls until cond holds for the chat requests the fake provider
// received, and returns them.
func (r *tgRig) waitLLM(what string, cond func([]fakellm.Request) bool) []fakellm.Request {
	r.t.Helper()
	deadline := time.Now().Add(tgWait)
	for {
		reqs := r.llm.Requests()
		if cond(reqs) {
			return reqs
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("waiting for %s: the provider got %d requests\nbot messages: %s\n%s",
				what, len(reqs), r.dump(), r.logTail())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// dump renders every bot message the fake holds, for failure messages.
func (r *tgRig) dump() string {
	var b strings.Builder
	for _, chat := range []int64{tgAna.ID, tgBob.ID, tgTeam} {
		for _, m := range r.tg.Messages(chat) {
			fmt.Fprintf(&b, "\n  [chat %d #%d edits=%d markup=%t] %q", m.ChatID, m.ID, m.Edits, m.ReplyMarkup != "", m.Text)
		}
	}
	return b.String()
}

// waitMessage waits for a bot message in chat for which match holds and
// returns it in its state at that moment.
func (r *tgRig) waitMessage(chat int64, what string, match func(faketelegram.Message) bool) faketelegram.Message {
	r.t.Helper()
	var found faketelegram.Message
	r.waitTG(what, func() bool {
		for _, m := range r.tg.Messages(chat) {
			if match(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// waitText waits for a bot message of chat whose plain text is want
// (surrounding space aside).
func (r *tgRig) waitText(chat int64, want string) faketelegram.Message {
	r.t.Helper()
	return r.waitMessage(chat, fmt.Sprintf("a bot message %q", want), func(m faketelegram.Message) bool {
		return strings.TrimSpace(faketelegram.PlainText(m.Text)) == want
	})
}

var tgCodeRE = regexp.MustCompile(`beamclaw pair telegram ([A-Za-z0-9-]+)`)

// tgCode extracts the pairing code from a bot message ("" when none).
func tgCode(m faketelegram.Message) string {
	if sub := tgCodeRE.FindStringSubmatch(faketelegram.PlainText(m.Text)); sub != nil {
		return sub[1]
	}
	return ""
}

// strangerDM sends text from u and waits for a pairing code reply newer
// than the bot's messages so far; it returns the code.
func (r *tgRig) strangerDM(u faketelegram.User, text string) string {
	r.t.Helper()
	before := len(r.tg.Messages(u.ID))
	r.tg.SendText(u.ID, u, text)
	var code string
	r.waitTG("a pairing code reply", func() bool {
		msgs := r.tg.Messages(u.ID)
		for _, m := range msgs[min(before, len(msgs)):] {
			if code = tgCode(m); code != "" {
				return true
			}
		}
		return false
	})
	return code
}

// pair makes u a paired user: a DM, its code, `beamclaw pair telegram`.
func (r *tgRig) pair(u faketelegram.User) {
	r.t.Helper()
	code := r.strangerDM(u, "hello?")
	out := r.h.must("pair", "telegram", code)
	if !strings.Contains(out.stdout, fmt.Sprint(u.ID)) {
		r.t.Errorf("pair telegram %s: %q does not name user %d", code, out.stdout, u.ID)
	}
}

// pairList runs `beamclaw pair list --json`.
func (r *tgRig) pairList() protocol.PairingList {
	r.t.Helper()
	out := r.h.must("pair", "list", "--json")
	var l protocol.PairingList
	if err := json.Unmarshal([]byte(out.stdout), &l); err != nil {
		r.t.Fatalf("pair list --json: %v: %s", err, out.stdout)
	}
	return l
}

// calls counts the fake's calls of method in chat.
func (r *tgRig) calls(method string, chat int64) []faketelegram.Call {
	var out []faketelegram.Call
	for _, c := range r.tg.Calls(method) {
		if c.Params["chat_id"] == fmt.Sprint(chat) {
			out = append(out, c)
		}
	}
	return out
}

// prompts counts the messages with buttons the bot sent to chat.
func (r *tgRig) prompts(chat int64) int {
	n := 0
	for _, c := range r.calls("sendMessage", chat) {
		if c.Params["reply_markup"] != "" {
			n++
		}
	}
	return n
}

// postWebhook POSTs body to the daemon's /webhook/telegram with secret
// (no header when "") and returns the status.
func (r *tgRig) postWebhook(secret string, body []byte) int {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+r.addr+"/webhook/telegram", bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		r.t.Fatalf("POST /webhook/telegram: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// tgButton is one inline keyboard button of a bot message.
type tgButton struct {
	Text string `json:"text"`
	Data string `json:"callback_data"`
}

// tgButtons decodes a message's inline keyboard.
func tgButtons(t *testing.T, m faketelegram.Message) []tgButton {
	t.Helper()
	var kb struct {
		Rows [][]tgButton `json:"inline_keyboard"`
	}
	if err := json.Unmarshal([]byte(m.ReplyMarkup), &kb); err != nil {
		t.Fatalf("reply_markup %q: %v", m.ReplyMarkup, err)
	}
	var out []tgButton
	for _, row := range kb.Rows {
		out = append(out, row...)
	}
	return out
}

// userTexts are the user messages of a provider request, in order.
func tgUserTexts(req fakellm.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// countUser counts the provider requests whose last user message is text.
func tgCountUser(reqs []fakellm.Request, text string) int {
	n := 0
	for _, q := range reqs {
		if q.LastUser() == text {
			n++
		}
	}
	return n
}
