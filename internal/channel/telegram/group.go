package telegram

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/pairing"
)

// groupPrefix starts the session user id of a group chat
// ("tg-group:<chat id>"): a group is a session of its own, never one of
// its members', so what is said and remembered there stays the group's.
const groupPrefix = "tg-group"

// adminsFor is how long a group's administrators are taken as known
// before they are asked for again (groups.members: admins).
const adminsFor = time.Minute

func groupUserID(chat int64) string { return groupPrefix + ":" + strconv.FormatInt(chat, 10) }

// memberOrigin is the approval origin of a member in a group chat: an
// approval asked for a run one member started is answered by that member
// only, not by the chat.
func memberOrigin(chat, member int64) string {
	return chatOrigin(chat) + ":" + strconv.FormatInt(member, 10)
}

// groupAgentKey keys a group's /agent choice beside its members' own.
func groupAgentKey(chat int64) string { return "group:" + strconv.FormatInt(chat, 10) }

// onGroup handles a message in an allowed group: ignored unless it is
// addressed to the bot (groups.trigger) by a member who may talk to it
// (groups.members); then it goes to the group's own session, without the
// bot's @name, and approvals it leads to are its sender's to answer.
func (c *Channel) onGroup(ctx context.Context, msg *models.Message) {
	chat, from := msg.Chat.ID, msg.From.ID
	if !c.addressed(msg) {
		c.log.Debug("group message not addressed to the bot", "chat_id", chat)
		return
	}
	if !c.mayTrigger(ctx, msg) {
		c.log.Debug("group member may not talk to the bot", "chat_id", chat, "user_id", from,
			"members", c.opts.Groups.Members)
		return
	}
	cv := conv{chat: chat, user: groupUserID(chat), origin: memberOrigin(chat, from),
		agentKey: groupAgentKey(chat), member: from, name: memberName(msg.From)}
	msg = c.unmention(msg)
	if c.othersApproval(ctx, msg, cv) {
		return
	}
	c.converse(ctx, msg, cv, c.opts.Agent)
}

// memberName is how a group shows a member: @username, else their name.
func memberName(u *models.User) string {
	if u.Username != "" {
		return "@" + u.Username
	}
	if u.FirstName != "" {
		return u.FirstName
	}
	return "user " + strconv.FormatInt(u.ID, 10)
}

// addressed reports whether a group message is for the bot: every message
// with groups.trigger all; else one that mentions it (@its_name, or a
// command addressed to it: /new@its_name) or replies to one of its
// messages.
func (c *Channel) addressed(msg *models.Message) bool {
	if c.opts.Groups.Trigger == TriggerAll {
		return true
	}
	if r := msg.ReplyToMessage; r != nil && r.From != nil && c.bot.id != 0 && r.From.ID == c.bot.id {
		return true
	}
	return len(c.botSpans(msg.Text, msg.Entities)) > 0 || len(c.botSpans(msg.Caption, msg.CaptionEntities)) > 0
}

// mayTrigger reports whether the sender of a group message may talk to
// the bot there (groups.members).
func (c *Channel) mayTrigger(ctx context.Context, msg *models.Message) bool {
	switch c.opts.Groups.Members {
	case MembersAnyone:
		return true
	case MembersAdmins:
		return c.isAdmin(ctx, msg.Chat.ID, msg.From.ID)
	}
	_, v := c.gate.Check(strconv.FormatInt(msg.From.ID, 10), msg.From.Username)
	return v == pairing.Admitted
}

// span is a part of a message's text (UTF-16 code units, as Telegram
// counts entity offsets) that addresses the bot.
type span struct {
	lo, hi int
	word   bool // a word of its own (@name), not the tail of a command
}

// botSpans returns the parts of text that address the bot: @its_name, a
// text mention of it, and the @its_name of a command addressed to it.
func (c *Channel) botSpans(text string, ents []models.MessageEntity) []span {
	if len(ents) == 0 {
		return nil
	}
	u := utf16.Encode([]rune(text))
	var out []span
	for _, e := range ents {
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > len(u) {
			continue
		}
		word := string(utf16.Decode(u[e.Offset : e.Offset+e.Length]))
		switch e.Type {
		case models.MessageEntityTypeMention:
			if c.isBotName(word) {
				out = append(out, span{e.Offset, e.Offset + e.Length, true})
			}
		case models.MessageEntityTypeTextMention:
			if e.User != nil && c.bot.id != 0 && e.User.ID == c.bot.id {
				out = append(out, span{e.Offset, e.Offset + e.Length, true})
			}
		case models.MessageEntityTypeBotCommand:
			if cmd, name, ok := strings.Cut(word, "@"); ok && c.isBotName("@"+name) {
				out = append(out, span{e.Offset + len(utf16.Encode([]rune(cmd))), e.Offset + e.Length, false})
			}
		}
	}
	return out
}

func (c *Channel) isBotName(word string) bool {
	return c.bot.name != "" && strings.EqualFold(word, "@"+c.bot.name)
}

// unmention is msg with the bot's @name taken out of its text and
// caption: "@bot what now?" is "what now?", "/new@bot" is "/new".
func (c *Channel) unmention(msg *models.Message) *models.Message {
	m := *msg
	m.Text = strip(msg.Text, c.botSpans(msg.Text, msg.Entities))
	m.Caption = strip(msg.Caption, c.botSpans(msg.Caption, msg.CaptionEntities))
	m.Entities, m.CaptionEntities = nil, nil // their offsets no longer hold
	return &m
}

// strip removes spans from text, each word with one space beside it.
func strip(text string, spans []span) string {
	if len(spans) == 0 {
		return text
	}
	u := utf16.Encode([]rune(text))
	slices.SortFunc(spans, func(a, b span) int { return b.lo - a.lo }) // from the end: offsets stay true
	for _, s := range spans {
		lo, hi := s.lo, s.hi
		switch {
		case !s.word:
		case hi < len(u) && u[hi] == ' ':
			hi++
		case lo > 0 && u[lo-1] == ' ':
			lo--
		}
		u = append(u[:lo:lo], u[hi:]...)
	}
	return strings.TrimSpace(string(utf16.Decode(u)))
}

// othersApproval answers a /yes, /no or /always in a group while only
// another member's approval waits there: it is theirs to answer. It
// reports whether it answered.
func (c *Channel) othersApproval(ctx context.Context, msg *models.Message, cv conv) bool {
	if _, ok := slashDecision(msg.Text); !ok {
		return false
	}
	mine, other := c.approvals.waiting(cv.chat, cv.member)
	if mine || other == "" {
		return false
	}
	c.reply(ctx, cv.chat, "This approval is for "+escapeText(other)+".")
	return true
}

// admins caches the administrators of groups (groups.members: admins).
type admins struct {
	mu     sync.Mutex
	byChat map[int64]adminList
}

type adminList struct {
	ids   []int64
	until time.Time
}

// isAdmin reports whether user administers chat, asking Telegram when
// the group's list is unknown or older than adminsFor. When Telegram
// cannot say, nobody is taken for an administrator.
func (c *Channel) isAdmin(ctx context.Context, chat, user int64) bool {
	now := c.opts.Clock.Now()
	c.admins.mu.Lock()
	l, ok := c.admins.byChat[chat]
	c.admins.mu.Unlock()
	if !ok || !now.Before(l.until) {
		ids, err := c.api.chatAdmins(ctx, chat)
		if err != nil {
			if ctx.Err() == nil {
				c.log.Warn("group administrators", "chat_id", chat, "err", err)
			}
			return false
		}
		l = adminList{ids: ids, until: now.Add(adminsFor)}
		c.admins.mu.Lock()
		if c.admins.byChat == nil {
			c.admins.byChat = map[int64]adminList{}
		}
		c.admins.byChat[chat] = l
		c.admins.mu.Unlock()
	}
	return slices.Contains(l.ids, user)
}
