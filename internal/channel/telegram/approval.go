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
	member int64  // in a group, the member who alone may answer it (0 in a DM)
	name   string // that member as the group shows them
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

// waiting reports, for a group chat, whether an undecided prompt waits
// for member, and else the name of another member one waits for.
func (a *approvals) waiting(chat, member int64) (mine bool, other string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.m {
		switch {
		case p.chatID != chat || p.done || p.member == 0:
		case p.member == member:
			return true, ""
		default:
			other = p.name
		}
	}
	return false, other
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

// promptHTML is the text of an approval prompt; in a group it names the
// member who alone may answer it.
func promptHTML(req beamclaw.ApprovalRequest, cv conv) string {
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
	if cv.member != 0 {
		b.WriteString("\n👤 For " + escapeText(cv.name) + ": only they can answer.")
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
	id, p := c.approvals.lookup(key)
	user, origin, refusal := c.decider(cq, p)
	if refusal != "" {
		_ = c.api.answerCallback(ctx, cq.ID, refusal)
		return
	}
	if m := cq.Message.Message; m != nil {
		switch {
		case p == nil:
			p = &prompt{chatID: m.Chat.ID, msgID: m.ID, html: escapeText(m.Text)}
			origin = chatOrigin(p.chatID)
		case m.Chat.ID == p.chatID:
			c.approvals.sent(p, m.ID) // the press names the prompt's message
		}
	}
	err := c.opts.Sessions.DecideFor(ctx, user, id, origin, d)
	c.decided(ctx, cq, id, p, d, err)
}

// decider is whose decision a press is: in a group only the member the
// prompt names decides, for the group's session; in a DM a user the gate
// admits, for their own. refusal is the callback answer of any other
// press, which changes nothing.
func (c *Channel) decider(cq *models.CallbackQuery, p *prompt) (user, origin, refusal string) {
	if p != nil && p.member != 0 {
		if cq.From.ID != p.member {
			return "", "", "This approval is for " + p.name + "."
		}
		return groupUserID(p.chatID), memberOrigin(p.chatID, p.member), ""
	}
	if m := cq.Message.Message; p == nil && m != nil && m.Chat.Type != models.ChatTypePrivate {
		return "", "", "This approval has expired." // a group's prompt nobody knows whose it was any more
	}
	uid := strconv.FormatInt(cq.From.ID, 10)
	if _, v := c.gate.Check(uid, cq.From.Username); v != pairing.Admitted {
		return "", "", "You are not allowed to answer this."
	}
	if p != nil {
		origin = chatOrigin(p.chatID)
	}
	return c.userID(uid), origin, ""
}

// decided answers the press with the decision's outcome and shows it on
// the prompt.
func (c *Channel) decided(ctx context.Context, cq *models.CallbackQuery, id string, p *prompt, d beamclaw.Decision, err error) {
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

// slashDecision is the decision a "/yes", "/no" or "/always" text names.
func slashDecision(text string) (beamclaw.Decision, bool) {
	s := strings.ToLower(strings.TrimSpace(text))
	if !strings.HasPrefix(s, "/") {
		return "", false
	}
	return beamclaw.ParseDecision(s)
}

// chatOrigin is the approval origin of a chat (beamclaw.Inbound.Origin):
// an approval asked in a chat is answered from that chat.
func chatOrigin(chat int64) string { return "telegram:" + strconv.FormatInt(chat, 10) }
