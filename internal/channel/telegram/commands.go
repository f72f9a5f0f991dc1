package telegram

import (
	"context"
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/store"
)

// bucketAgents remembers the agent each Telegram user chose with /agent.
const bucketAgents = "telegram_agents"

const helpHTML = `<b>Commands</b>
/new — start a new session (clears the history)
/context — how much of the model's context window the session uses
/agent NAME — talk to another agent (/agent alone names the current one)
/yes /no /always — answer a waiting approval (or use its buttons)
/link — link this account to another of yours (/link CODE with a code shown there)
/help — this help`

// command answers the chat commands of the terminal UI: /help (and
// /start), /new, /context and /agent. It reports false for anything else
// (a message for the agent, or an approval word the session handles).
func (c *Channel) command(ctx context.Context, msg *models.Message, cv conv, agent string) bool {
	name, arg, _ := strings.Cut(strings.TrimSpace(msg.Text), " ")
	name, _, _ = strings.Cut(strings.ToLower(name), "@") // "/new@another_bot" in a DM
	arg = strings.TrimSpace(arg)
	chat := msg.Chat.ID
	switch name {
	case "/help", "/start":
		c.reply(ctx, chat, helpHTML)
	case "/new", "/reset":
		sid := c.opts.Sessions.SessionID(c.inbound(cv.user, agent))
		if err := c.opts.Sessions.Reset(ctx, sid); err != nil && beamclaw.KindOf(err) != beamclaw.KindNotFound {
			c.reply(ctx, chat, html.EscapeString("Could not start a new session: "+beamclaw.UserMessage(err)))
			return true
		}
		c.reply(ctx, chat, "New session: the history is cleared.")
	case "/context":
		used, window, n, err := c.opts.Sessions.Context(ctx, c.opts.Sessions.SessionID(c.inbound(cv.user, agent)))
		if err != nil {
			c.reply(ctx, chat, html.EscapeString("Could not read the context: "+beamclaw.UserMessage(err)))
			return true
		}
		c.reply(ctx, chat, contextHTML(used, window, n))
	case "/agent":
		c.switchAgent(ctx, chat, cv.agentKey, agent, arg)
	case "/link":
		c.link(ctx, msg, strconv.FormatInt(msg.From.ID, 10), arg)
	default:
		return false
	}
	return true
}

// inbound names the session of user with agent (for SessionID).
func (c *Channel) inbound(user, agent string) beamclaw.Inbound {
	return beamclaw.Inbound{Channel: beamclaw.ChannelTelegram, UserID: user, AgentID: agent}
}

// switchAgent serves /agent: key is whose choice it is (a user's, or a
// group's).
func (c *Channel) switchAgent(ctx context.Context, chat int64, key, current, name string) {
	switch {
	case name == "":
		c.reply(ctx, chat, "You are talking to <b>"+html.EscapeString(current)+"</b>. /agent NAME talks to another.")
		return
	case name == current:
		c.reply(ctx, chat, "Already talking to <b>"+html.EscapeString(name)+"</b>.")
		return
	case c.opts.KnownAgent == nil || !c.opts.KnownAgent(name):
		c.reply(ctx, chat, "There is no agent <b>"+html.EscapeString(name)+"</b>.")
		return
	}
	if err := c.agents.Put(key, name); err != nil {
		c.reply(ctx, chat, html.EscapeString("Could not switch: "+err.Error()))
		return
	}
	c.reply(ctx, chat, "Now talking to <b>"+html.EscapeString(name)+"</b>; its conversation with you continues where it was.")
}

// chosenAgent is the agent chosen with /agent under key (a user's or a
// group's), while it exists.
func (c *Channel) chosenAgent(key string) (string, bool) {
	name, ok, err := c.agents.Get(key)
	if err != nil || !ok || c.opts.KnownAgent == nil || !c.opts.KnownAgent(name) {
		return "", false
	}
	return name, true
}

func contextHTML(used, window, messages int) string {
	if window <= 0 {
		return fmt.Sprintf("Context: %d tokens used · %d messages (window unknown)", used, messages)
	}
	return fmt.Sprintf("Context: %d / %d tokens (%d%%) · %d messages", used, window, used*100/window, messages)
}

func newAgentChoices(db *store.DB) (*store.KV, error) { return store.NewSharedKV(db, bucketAgents) }
