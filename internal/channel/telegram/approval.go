package telegram

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
)

// callbackPrefix starts the callback_data of approval buttons:
// "ap|<y|a|n>|<approval id or #short key>" (Telegram allows 64 bytes).
const callbackPrefix = "ap|"

const maxCallbackData = 64

// prompt is an approval prompt message the bot sent.
type prompt struct {
	chatID int64
	msgID  int
	html   string // the prompt's text, without the decision line
	done   bool   // a decision (or expiry) was shown
}

// approvals maps approval ids to their prompts and callback keys.
type approvals struct {
	mu    sync.Mutex
	m     map[string]*prompt
	short map[string]string // "#n" -> approval id, for ids too long for callback_data
	n     int
}

// add registers a prompt and returns the key its buttons carry.
func (a *approvals) add(id string, p *prompt) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.m[id] = p
	if len(callbackPrefix)+2+len(id) <= maxCallbackData {
		return id
	}
	if a.short == nil {
		a.short = map[string]string{}
	}
	a.n++
	key := "#" + strconv.Itoa(a.n)
	a.short[key] = id
	return key
}

// lookup resolves a callback key to its approval id and prompt (nil when
// the prompt is unknown, e.g. after a restart).
func (a *approvals) lookup(key string) (string, *prompt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := key
	if strings.HasPrefix(key, "#") {
		id = a.short[key]
	}
	return id, a.m[id]
}

// finish marks id's prompt decided; first reports whether this call did.
func (a *approvals) finish(id string) (p *prompt, first bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p = a.m[id]
	if p == nil || p.done {
		return p, false
	}
	p.done = true
	return p, true
}

// sent records the message id of p: from Telegram's answer to the send,
// or from a press on its buttons (which can come first, or alone when
// that answer is lost).
func (a *approvals) sent(p *prompt, msgID int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p.msgID = msgID
}

// forget drops id (its run ended).
func (a *approvals) forget(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, id)
	for k, v := range a.short {
		if v == id {
			delete(a.short, k)
		}
	}
}

func promptHTML(req beamclaw.ApprovalRequest) string {
	var b strings.Builder
	b.WriteString("🔐 <b>Approval needed</b>: <code>" + escapeText(req.ToolName) + "</code>")
	if req.Risk != "" {
		b.WriteString(" (risk: " + escapeText(req.Risk) + ")")
	}
	if req.Prompt != "" {
		b.WriteString("\n" + escapeText(req.Prompt))
	}
	if args := strings.TrimSpace(req.Args); args != "" && args != "{}" {
		b.WriteString("\n<pre>" + escapeText(truncateRunes(args, 600)) + "</pre>")
	}
	return b.String()
}

func truncateRunes(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n]) + "…"
}

func keyboard(key string) *models.InlineKeyboardMarkup {
	return &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{
		{Text: "✅ Allow once", CallbackData: callbackPrefix + "y|" + key},
		{Text: "♾️ Always", CallbackData: callbackPrefix + "a|" + key},
		{Text: "❌ Deny", CallbackData: callbackPrefix + "n|" + key},
	}}}
}

func parseCallback(data string) (beamclaw.Decision, string, bool) {
	rest, ok := strings.CutPrefix(data, callbackPrefix)
	if !ok {
		return "", "", false
	}
	code, key, ok := strings.Cut(rest, "|")
	if !ok || key == "" {
		return "", "", false
	}
	d, ok := map[string]beamclaw.Decision{"y": beamclaw.Allow, "a": beamclaw.Always, "n": beamclaw.Deny}[code]
	return d, key, ok
}

func decisionLine(d beamclaw.Decision) string {
	switch d {
	case beamclaw.Allow:
		return "✅ Allowed once"
	case beamclaw.Always:
		return "♾️ Always allowed for this session"
	case beamclaw.Deny:
		return "❌ Denied"
	}
	return "⌛ Expired: nothing was run"
}

// showOutcome edits a prompt to its final text, without buttons.
func (c *Channel) showOutcome(ctx context.Context, p *prompt, line string) {
	c.approvals.mu.Lock()
	chatID, msgID, html := p.chatID, p.msgID, p.html
	c.approvals.mu.Unlock()
	if msgID == 0 {
		return // the prompt was never shown
	}
	err := c.api.editMessageText(ctx, &bot.EditMessageTextParams{ChatID: chatID, MessageID: msgID,
		Text: html + "\n\n<b>" + escapeText(line) + "</b>", ParseMode: models.ParseModeHTML})
	if err != nil && ctx.Err() == nil {
		c.log.Warn("edit approval prompt", "chat_id", chatID, "err", err)
	}
}

// onCallback answers an approval button press.
func (c *Channel) onCallback(ctx context.Context, cq *models.CallbackQuery) {
	if strings.HasPrefix(cq.Data, questionPrefix) {
		c.onQuestionCallback(ctx, cq)
		return
	}
	d, key, ok := parseCallback(cq.Data)
	if !ok {
		_ = c.api.answerCallback(ctx, cq.ID, "")
		return
	}
	if _, v := c.gate.Check(strconv.FormatInt(cq.From.ID, 10), cq.From.Username); v != pairing.Admitted {
		_ = c.api.answerCallback(ctx, cq.ID, "You are not allowed to answer this.")
		return
	}
	id, p := c.approvals.lookup(key)
	if m := cq.Message.Message; m != nil {
		switch {
		case p == nil:
			p = &prompt{chatID: m.Chat.ID, msgID: m.ID, html: escapeText(m.Text)}
		case m.Chat.ID == p.chatID:
			c.approvals.sent(p, m.ID) // the press names the prompt's message
		}
	}
	origin := ""
	if p != nil {
		origin = chatOrigin(p.chatID)
	}
	err := c.opts.Sessions.DecideFor(ctx, c.userID(strconv.FormatInt(cq.From.ID, 10)), id, origin, d)
	line, answer := decisionLine(d), decisionLine(d)
	switch {
	case beamclaw.KindOf(err) == beamclaw.KindNotFound && err != nil:
		line, answer = decisionLine(""), "This approval has expired."
	case err != nil:
		c.log.Warn("approval decision", "approval_id", id, "err", err)
		_ = c.api.answerCallback(ctx, cq.ID, "Sorry, that did not work: "+beamclaw.UserMessage(err))
		return
	}
	if err := c.api.answerCallback(ctx, cq.ID, answer); err != nil && ctx.Err() == nil {
		c.log.Warn("answer callback", "err", err)
	}
	if q, first := c.approvals.finish(id); first {
		c.showOutcome(ctx, q, line)
	} else if q == nil && p != nil {
		c.showOutcome(ctx, p, line)
	}
}

// chatOrigin is the approval origin of a chat (beamclaw.Inbound.Origin):
// an approval asked in a chat is answered from that chat.
func chatOrigin(chat int64) string { return "telegram:" + strconv.FormatInt(chat, 10) }
