package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/pairing"
	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/supervise"
)

// Channel is the Telegram channel service.
type Channel struct {
	opts   Options
	log    *slog.Logger
	red    redactor
	api    *api
	inbox  *inbox
	gate   pairing.Gate
	agents *store.KV     // the agent each user chose with /agent (commands.go)
	wake   chan struct{} // an update was queued

	approvals approvals
	questions questions      // tools' questions waiting in a chat (elicit.go)
	admins    admins         // groups' administrators, for groups.members: admins (group.go)
	bot       botIdentity    // who the bot is (getMe): how a group addresses it
	wg        sync.WaitGroup // route workers

	// processed, when set (tests), is called after each update is done.
	processed func(updateID int64)
}

// New validates opts and builds the channel. It makes no network call.
func New(opts Options) (*Channel, error) {
	opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	inboxes, err := inboxArea(opts.DB, opts.Mode)
	if err != nil {
		return nil, fmt.Errorf("telegram inbox: %w", err)
	}
	agents, err := newAgentChoices(opts.DB)
	if err != nil {
		return nil, fmt.Errorf("telegram agents: %w", err)
	}
	red := newRedactor(opts.Token)
	c := &Channel{
		opts:  opts,
		log:   slog.New(redactHandler{inner: opts.Logger.Handler(), r: red}),
		red:   red,
		inbox: &inbox{area: inboxes, window: opts.SeenWindow},
		gate: pairing.Gate{Channel: ChannelName, Policy: opts.DMPolicy,
			AllowFrom: opts.AllowFrom, Store: opts.Pairing},
		agents:    agents,
		wake:      make(chan struct{}, 1),
		approvals: approvals{m: map[string]*prompt{}},
	}
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	// The library's own client timeout must outlast the long poll.
	pollClient := &http.Client{Transport: client.Transport, Timeout: opts.PollTimeout + 15*time.Second}
	b, err := bot.New(opts.Token,
		bot.WithServerURL(opts.APIURL),
		bot.WithSkipGetMe(),
		bot.WithHTTPClient(opts.PollTimeout, pollClient),
		bot.WithDefaultHandler(c.onPolledUpdate),
		bot.WithNotAsyncHandlers(),
		bot.WithUpdatesChannelCap(0),
		bot.WithAllowedUpdates(bot.AllowedUpdates{models.AllowedUpdateMessage, models.AllowedUpdateCallbackQuery}),
		bot.WithErrorsHandler(func(err error) { c.log.Warn("telegram api", "err", err) }),
		bot.WithDebugHandler(func(string, ...any) {}),
	)
	if err != nil {
		return nil, red.Err(fmt.Errorf("telegram bot: %w", err))
	}
	c.api = &api{b: b, http: client, red: red, clock: opts.Clock, log: c.log}
	return c, nil
}

func (c *Channel) String() string { return "telegram" }

// botIdentity is the bot's own user, learnt from getMe before any update
// is processed (by the same goroutine).
type botIdentity struct {
	id   int64
	name string // username, without @
}

// Serve checks the token with getMe, registers or removes the webhook
// according to the mode, then receives and processes updates until ctx
// ends. Updates queued before a crash are processed first.
func (c *Channel) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer c.api.http.CloseIdleConnections()
	defer c.wg.Wait() // route workers end with ctx
	defer cancel()
	if err := c.hello(ctx); err != nil {
		return err
	}
	var poll sync.WaitGroup
	if c.opts.Mode == ModeLongPoll {
		poll.Add(1)
		go func() {
			defer poll.Done()
			c.api.b.Start(ctx)
		}()
	}
	err := c.work(ctx)
	cancel()
	poll.Wait()
	return err
}

func (c *Channel) hello(ctx context.Context) error {
	me, err := c.api.b.GetMe(ctx)
	if err != nil {
		err = c.red.Err(fmt.Errorf("telegram getMe: %w", err))
		if errors.Is(err, bot.ErrorUnauthorized) || errors.Is(err, bot.ErrorNotFound) {
			return supervise.NoRestart(fmt.Errorf("the bot token was refused: %w", err))
		}
		return err
	}
	c.bot = botIdentity{id: me.ID, name: me.Username}
	if c.opts.Mode == ModeWebhook {
		_, err = c.api.b.SetWebhook(ctx, &bot.SetWebhookParams{URL: c.opts.WebhookURL,
			SecretToken:    c.opts.WebhookSecret,
			AllowedUpdates: []string{models.AllowedUpdateMessage, models.AllowedUpdateCallbackQuery}})
	} else {
		_, err = c.api.b.DeleteWebhook(ctx, &bot.DeleteWebhookParams{})
	}
	if err != nil {
		return c.red.Err(fmt.Errorf("telegram %s setup: %w", c.opts.Mode, err))
	}
	c.log.Info("telegram channel started", "bot", me.Username, "mode", c.opts.Mode)
	return nil
}

// onPolledUpdate is the long-poll handler: record, then wake the worker.
func (c *Channel) onPolledUpdate(ctx context.Context, _ *bot.Bot, upd *models.Update) {
	raw, err := json.Marshal(upd)
	if err != nil {
		c.log.Error("encode polled update", "update_id", upd.ID, "err", err)
		return
	}
	if _, err := c.ingest(upd.ID, raw); err != nil {
		c.log.Error("record polled update", "update_id", upd.ID, "err", err)
	}
}

// ingest records an update durably (unless its id was seen) and wakes the
// worker. fresh is false for a duplicate.
func (c *Channel) ingest(id int64, raw json.RawMessage) (fresh bool, err error) {
	fresh, err = c.inbox.record(id, raw)
	if err != nil {
		return false, err
	}
	if fresh {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	} else {
		c.log.Debug("duplicate update dropped", "update_id", id)
	}
	return fresh, nil
}

// work processes queued updates one at a time, oldest first.
func (c *Channel) work(ctx context.Context) error {
	for {
		for {
			seq, raw, ok, err := c.inbox.next()
			if err != nil {
				return err
			}
			if !ok || ctx.Err() != nil {
				break
			}
			var upd models.Update
			if err := json.Unmarshal(raw, &upd); err != nil {
				c.log.Warn("undecodable update dropped", "err", err)
			} else {
				c.process(ctx, &upd)
			}
			if ctx.Err() != nil {
				return nil // unfinished: processed again after a restart
			}
			if err := c.inbox.done(seq); err != nil {
				return err
			}
			if c.processed != nil {
				c.processed(upd.ID)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-c.wake:
		}
	}
}

// Send delivers text to chat (a chat id, or @channel) as Telegram HTML, in
// as many messages as it takes: an answer nobody asked for in this chat
// (a scheduled job's or a heartbeat's).
func (c *Channel) Send(ctx context.Context, chat, text string) error {
	var id any = chat
	if n, err := strconv.ParseInt(chat, 10, 64); err == nil {
		id = n
	}
	for _, part := range render(text, "") {
		if _, err := c.api.sendMessage(ctx, &bot.SendMessageParams{ChatID: id, Text: part, ParseMode: models.ParseModeHTML}); err != nil {
			return fmt.Errorf("telegram: send to %s: %w", chat, err)
		}
	}
	return nil
}
