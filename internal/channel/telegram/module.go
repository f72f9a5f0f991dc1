package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/channel"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/provider/openai"
)

// Module describes the channel to the daemon: a Telegram bot, supervised
// by default, taking scheduled answers as telegram:<chat>.
func (Config) Module() channel.Module {
	return channel.Module{Name: beamclaw.ChannelTelegram, Autonomy: beamclaw.Supervised, Delivers: true, Reply: reply,
		Default: func() channel.Section { return DefaultConfig() }, New: newInstance}
}

// Enabled reports whether the bot runs.
func (c Config) Enabled() bool { return c.On }

// reply is the chat of a Telegram session user: a user's private chat
// (its id is the user's), or a group's own chat.
func reply(userID string) string {
	for _, prefix := range []string{userPrefix + ":", groupPrefix + ":"} {
		if id, ok := strings.CutPrefix(userID, prefix); ok && id != "" {
			return ChannelName + ":" + id
		}
	}
	return ""
}

// CheckTarget accepts a chat id (a number) or a public channel's
// @username as a scheduled answer's chat.
func (Config) CheckTarget(chat string) error {
	if name, ok := strings.CutPrefix(chat, "@"); ok {
		if len(name) < 4 || strings.IndexFunc(name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
		}) >= 0 {
			return errors.New("a Telegram channel name is @ and at least 4 letters, digits or _")
		}
		return nil
	}
	if _, err := strconv.ParseInt(chat, 10, 64); err != nil {
		return errors.New("want telegram:<chat id> (a number) or telegram:@channel")
	}
	return nil
}

// instance is the Channel as the daemon runs it.
type instance struct{ *Channel }

// newInstance builds the channel from the host and the section's Options:
// its pairing store in the daemon's database, its voice transcriber when
// voice notes are on.
func newInstance(h channel.Host, options any) (channel.Instance, error) {
	o, ok := options.(Options)
	if !ok {
		return nil, fmt.Errorf("telegram: options are %T", options)
	}
	sessions, ok := h.Sessions.(Sessions)
	if !ok {
		return nil, fmt.Errorf("telegram: the host's sessions (%T) cannot answer approvals, questions and commands", h.Sessions)
	}
	if h.DB == nil {
		return nil, errors.New("telegram: Host.DB is required")
	}
	o.Sessions, o.DB, o.Logger, o.Clock, o.KnownAgent = sessions, h.DB, h.Logger, h.Clock, h.KnownAgent
	o.Pairing = pairing.New(h.DB, pairing.Options{})
	o.EditChunk, o.Links = h.StreamChunk, h.Links
	if h.UserID != nil {
		o.UserID = func(id string) string { return h.UserID(userPrefix, id) }
	}
	if o.STT != nil && o.Transcriber == nil {
		tr, err := openai.NewTranscriber(openai.OptionsOf(*o.STT, h.Logger))
		if err != nil {
			return nil, fmt.Errorf("telegram voice transcription: %w", err)
		}
		o.Transcriber = tr
	}
	c, err := New(o)
	if err != nil {
		return nil, err
	}
	return instance{c}, nil
}

// Routes implements channel.Instance: in webhook mode, the route Telegram
// posts updates to, authenticated by its secret token header.
func (i instance) Routes() []channel.Route {
	if i.opts.Mode != ModeWebhook {
		return nil
	}
	return []channel.Route{{Method: http.MethodPost, Pattern: WebhookPath, Handler: i.WebhookHandler(), OwnAuth: true}}
}

// Deliver implements channel.Instance: a scheduled answer to chat.
func (i instance) Deliver(ctx context.Context, chat string, d channel.Delivery) error {
	return i.Send(ctx, chat, d.Text)
}

// Singleton implements channel.Singleton: a bot's long poll runs on one
// node of a cluster at a time (Telegram refuses a second poller); its
// webhook is taken by any node.
func (i instance) Singleton() bool { return i.opts.Mode == ModeLongPoll }

// Detail is the receiving mode, for the daemon's health.
func (i instance) Detail() string { return i.opts.Mode }
