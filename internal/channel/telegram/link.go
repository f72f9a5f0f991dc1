package telegram

import (
	"context"
	"errors"
	"html"

	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/people"
)

// link answers /link in a private chat: without a code, a code to type on
// the person's other account (the terminal: beamclaw users link CODE; a
// /ws client: a link frame); with one shown there, links this Telegram
// account to it. A group never links: a code shown there is seen by all.
func (c *Channel) link(ctx context.Context, msg *models.Message, uid, code string) {
	chat := msg.Chat.ID
	switch {
	case msg.Chat.Type != models.ChatTypePrivate:
		c.reply(ctx, chat, "Link your accounts in a private chat with me, not in a group.")
		return
	case c.opts.Links == nil:
		c.reply(ctx, chat, "Linking accounts is not available here.")
		return
	}
	account := userPrefix + ":" + uid
	if code == "" {
		code, exp, err := c.opts.Links.Issue(ctx, account)
		if err != nil {
			c.log.Error("link code", "err", err)
			c.reply(ctx, chat, "Could not make a link code; try again later.")
			return
		}
		c.reply(ctx, chat, "Your link code: <code>"+html.EscapeString(code)+"</code>\n"+
			"Type it on your other account before "+exp.UTC().Format("15:04")+" UTC: <code>beamclaw users link "+html.EscapeString(code)+
			"</code> in the terminal, or a <code>link</code> frame on /ws. Your conversations and memory here then join that account's.")
		return
	}
	person, err := c.opts.Links.Redeem(ctx, account, code)
	switch {
	case errors.Is(err, people.ErrBadCode), errors.Is(err, people.ErrSameAccount), errors.Is(err, people.ErrTooManyTries):
		c.reply(ctx, chat, html.EscapeString(err.Error()))
	case err != nil:
		c.log.Error("link", "err", err)
		c.reply(ctx, chat, "Could not link the accounts; try again later.")
	default:
		c.log.Info("accounts linked", "account", account)
		c.reply(ctx, chat, "Linked: this account is now <b>"+html.EscapeString(person)+"</b>. Your sessions and memory follow you there.")
	}
}
