package telegram

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// A scheduled answer goes to a chat id or a public @channel; anything
// else is refused with the forms that work.
func TestCheckTarget(t *testing.T) {
	for target, ok := range map[string]bool{
		"42": true, "-1001234567890": true, "@beamclaw_news": true,
		"abc": false, "": false, "@ab": false, "@bad-name": false,
	} {
		if err := (Config{}).CheckTarget(target); (err == nil) != ok {
			t.Errorf("CheckTarget(%q) = %v, want ok=%v", target, err, ok)
		}
	}
}

// A job made in a private chat answers in that chat, one made in a group
// in the group; a user who is not a Telegram user has no Telegram reply.
func TestReply(t *testing.T) {
	m := DefaultConfig().Module()
	if m.Name != beamclaw.ChannelTelegram || !m.Delivers || m.Autonomy != beamclaw.Supervised {
		t.Fatalf("Module = %+v", m)
	}
	for user, want := range map[string]string{"tg:42": "telegram:42", "tg:": "", "tg-group:-100200": "telegram:-100200", "tg-group:": "", "local:me": "", "webhook:ci:42": ""} {
		if got := m.Reply(user); got != want {
			t.Errorf("Reply(%q) = %q, want %q", user, got, want)
		}
	}
}

// Built through its Module, the channel takes the host's user ids and
// stream chunk, mounts its webhook route only in webhook mode (checking
// Telegram's secret itself, not the gateway token), and says its mode in
// the daemon's health.
func TestNewFromHost(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "b.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	c := DefaultConfig()
	c.On = true
	getenv := func(k string) string {
		return map[string]string{"TELEGRAM_BOT_TOKEN": "1:tok", "TELEGRAM_WEBHOOK_SECRET": "s"}[k]
	}
	host := channel.Host{Sessions: &fakeSessions{changed: make(chan struct{})}, DB: db, StreamChunk: 7,
		UserID: func(prefix, id string) string { return "owner(" + prefix + ":" + id + ")" }}

	inst, err := c.Module().New(host, c.Options(getenv))
	if err != nil {
		t.Fatal(err)
	}
	ch := inst.(instance)
	if ch.opts.EditChunk != 7 || ch.userID("42") != "owner(tg:42)" || ch.opts.Transcriber == nil {
		t.Errorf("from the host: chunk %d, user %q, transcriber %v", ch.opts.EditChunk, ch.userID("42"), ch.opts.Transcriber)
	}
	if len(inst.Routes()) != 0 || ch.Detail() != ModeLongPoll {
		t.Errorf("long poll: routes %v, detail %q", inst.Routes(), ch.Detail())
	}

	c.Mode, c.WebhookURL = ModeWebhook, "https://bot.example/webhook/telegram"
	inst, err = c.Module().New(host, c.Options(getenv))
	if err != nil {
		t.Fatal(err)
	}
	if r := inst.Routes(); len(r) != 1 || r[0].Pattern != WebhookPath || !r[0].OwnAuth {
		t.Errorf("webhook mode routes = %+v, want %s checking its own secret", r, WebhookPath)
	}

	if _, err := c.Module().New(channel.Host{Sessions: sendOnly{}, DB: db}, c.Options(getenv)); err == nil ||
		!strings.Contains(err.Error(), "cannot answer approvals") {
		t.Errorf("sessions that can only Send: %v", err)
	}
}

type sendOnly struct{ channel.Sessions }
