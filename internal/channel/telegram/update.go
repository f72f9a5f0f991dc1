package telegram

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
)

// process handles one update; failures are answered to the user where
// that helps and logged, never retried (the update is consumed).
func (c *Channel) process(ctx context.Context, upd *models.Update) {
	switch {
	case upd.CallbackQuery != nil:
		c.onCallback(ctx, upd.CallbackQuery)
	case upd.Message != nil:
		c.onMessage(ctx, upd.Message)
	}
}

// groupAllowed says whether the bot talks in the group chat at all.
func (c *Channel) groupAllowed(chat int64) bool {
	g := c.opts.Groups
	return g.Enabled && (len(g.Allow) == 0 || slices.Contains(g.Allow, strconv.FormatInt(chat, 10)))
}

func (c *Channel) onMessage(ctx context.Context, msg *models.Message) {
	if msg.From == nil || msg.From.IsBot {
		return
	}
	switch msg.Chat.Type {
	case models.ChatTypePrivate:
		c.onDirect(ctx, msg)
	case models.ChatTypeGroup, models.ChatTypeSupergroup:
		if c.groupAllowed(msg.Chat.ID) {
			c.onGroup(ctx, msg)
		}
	}
}

// onDirect handles a private chat: the DM gate (pairing, allowlist), then
// the user's own session.
func (c *Channel) onDirect(ctx context.Context, msg *models.Message) {
	uid := strconv.FormatInt(msg.From.ID, 10)
	agent, verdict := c.gate.Check(uid, msg.From.Username)
	switch verdict {
	case pairing.Denied:
		c.log.Debug("message from a user not allowed", "user_id", uid)
		return
	case pairing.NeedsPairing:
		c.offerPairing(ctx, msg)
		return
	}
	if agent == "" {
		agent = c.opts.Agent
	}
	cv := conv{chat: msg.Chat.ID, user: c.userID(uid), origin: chatOrigin(msg.Chat.ID), agentKey: uid}
	c.converse(ctx, msg, cv, agent)
}

// converse passes a message the bot takes to its session: an answer to
// a waiting question, a chat command, or a message for the agent.
func (c *Channel) converse(ctx context.Context, msg *models.Message, cv conv, agent string) {
	if chosen, ok := c.chosenAgent(cv.agentKey); ok {
		agent = chosen
	}
	if c.answerText(ctx, msg, cv) || c.command(ctx, msg, cv, agent) {
		return
	}
	content, atts, ok := c.content(ctx, msg)
	if !ok {
		return
	}
	r := c.newRoute(ctx, cv)
	in := beamclaw.Inbound{
		Channel:     beamclaw.ChannelTelegram,
		UserID:      cv.user,
		AgentID:     agent,
		MessageID:   fmt.Sprintf("tg:%d:%d", msg.Chat.ID, msg.ID),
		Origin:      cv.origin,
		Content:     content,
		Attachments: atts,
		Route:       r,
	}
	if _, err := c.opts.Sessions.Send(ctx, in); err != nil {
		r.abort(err)
	}
}

// conv is the conversation a message belongs to: whose session it goes
// to, where approvals asked for it are answered from, and in a group the
// member who spoke.
type conv struct {
	chat     int64
	user     string // the session user: the DM user's own, or the group's
	origin   string // Inbound.Origin: only a decision from here answers its approvals
	agentKey string // whose /agent choice applies: the Telegram user id, or the group's key
	member   int64  // in a group, the member whose message started the run (0 in a DM)
	name     string // that member as the group shows them (@username or first name)
}

// userID is the session user: BEAMCLAW_USER when set, else "tg:<id>".
func (c *Channel) userID(tgID string) string {
	if c.opts.UserID != nil {
		return c.opts.UserID(tgID)
	}
	return userPrefix + ":" + tgID
}

// offerPairing answers a stranger's DM with a pairing code and the
// command the owner runs. The code is never logged.
func (c *Channel) offerPairing(ctx context.Context, msg *models.Message) {
	uid := strconv.FormatInt(msg.From.ID, 10)
	name := msg.From.Username
	if name == "" {
		name = msg.From.FirstName
	}
	p, created, err := c.opts.Pairing.Request(ChannelName, uid, name)
	var text string
	switch {
	case errors.Is(err, pairing.ErrTooManyPending):
		text = "This bot is private, and too many people are waiting for its owner's approval right now. Please try again in an hour."
	case err != nil:
		c.log.Error("pairing request", "user_id", uid, "err", err)
		text = "This bot is private, and pairing is not available right now. Please try again later."
	default:
		text = pairingText(p.Code, uid, int(c.opts.Pairing.Expiry().Minutes()))
		if created {
			c.log.Info("pairing requested", "request", p)
		}
	}
	c.reply(ctx, msg.Chat.ID, text)
}

func pairingText(code, uid string, minutes int) string {
	return "👋 This bot is private. To talk to it, ask its owner to run:\n\n" +
		"<code>beamclaw pair telegram " + escapeText(code) + "</code>\n\n" +
		"Your pairing code is <b>" + escapeText(code) + "</b> (Telegram id " + escapeText(uid) +
		"); it expires in " + strconv.Itoa(minutes) + " minutes."
}

// reply sends one HTML message, logging (not returning) a failure.
func (c *Channel) reply(ctx context.Context, chatID int64, html string) {
	_, err := c.api.sendMessage(ctx, &bot.SendMessageParams{ChatID: chatID, Text: html,
		ParseMode: models.ParseModeHTML})
	if err != nil && ctx.Err() == nil {
		c.log.Warn("telegram reply", "chat_id", chatID, "err", err)
	}
}
