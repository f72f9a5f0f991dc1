package telegram

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/elicit"
	"github.com/beamclaw/beamclaw-go/internal/pairing"
)

// questionPrefix starts the callback_data of a question's buttons:
// "el|<a|d|c|v<n>>|<elicitation id>".
const questionPrefix = "el|"

// question is a tool's question shown in a chat, waiting for a button or
// a text reply. A chat has at most one; a newer one replaces it.
type question struct {
	id      string
	chatID  int64
	user    string // the session user it was asked for (Sessions.Answer)
	member  int64  // in a group, the member who alone may answer it (0 in a DM)
	name    string // that member as the group shows them
	msgID   int
	html    string
	form    elicit.Form
	choice  []string // values offered as buttons (one enum or boolean field)
	outcome string   // set when it was answered before its message was sent
}

type questions struct {
	mu     sync.Mutex
	byChat map[int64]*question
}

func (q *questions) put(x *question) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byChat == nil {
		q.byChat = map[int64]*question{}
	}
	q.byChat[x.chatID] = x
}

func (q *questions) get(chatID int64) *question {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.byChat[chatID]
}

// take removes the chat's question if it is id ("" = any).
func (q *questions) take(chatID int64, id string) *question {
	q.mu.Lock()
	defer q.mu.Unlock()
	x := q.byChat[chatID]
	if x == nil || (id != "" && x.id != id) {
		return nil
	}
	delete(q.byChat, chatID)
	return x
}

// question shows a tool's question in the run's chat, or its outcome.
func (c *Channel) question(ctx context.Context, cv conv, ev beamclaw.RunEvent) {
	chatID, e := cv.chat, *ev.Elicit
	if ev.Type == beamclaw.EvElicitResult {
		if x := c.questions.take(chatID, e.ID); x != nil {
			c.closeQuestion(ctx, x, outcomeLine(ev.Text))
		}
		return
	}
	form, _ := elicit.Parse(e.Schema)
	x := &question{id: e.ID, chatID: chatID, user: cv.user, member: cv.member, name: cv.name, form: form}
	var b strings.Builder
	b.WriteString("❓ <b>" + escapeText(e.Source) + " asks</b>: " + escapeText(e.Message))
	if e.URL != "" {
		b.WriteString("\nOpen " + escapeText(e.URL) + " then press Accept.")
	}
	for _, f := range form.Fields {
		b.WriteString("\n• " + escapeText(f.Label()))
	}
	if len(form.Fields) > 0 {
		b.WriteString("\n\nReply with the value")
		if len(form.Fields) > 1 {
			b.WriteString("s, one <code>field=value</code> per line")
		}
		b.WriteString(", or use the buttons.")
	}
	if cv.member != 0 {
		b.WriteString("\n👤 For " + escapeText(cv.name) + ": only they can answer.")
	}
	x.html = b.String()
	var rows [][]models.InlineKeyboardButton
	if len(form.Fields) == 1 {
		f := form.Fields[0]
		x.choice = f.Enum
		if f.Type == "boolean" {
			x.choice = []string{"yes", "no"}
		}
		var row []models.InlineKeyboardButton
		for i, v := range x.choice {
			row = append(row, models.InlineKeyboardButton{Text: v, CallbackData: questionPrefix + "v" + strconv.Itoa(i) + "|" + e.ID})
		}
		if len(row) > 0 {
			rows = append(rows, row)
		}
	}
	accept := "✅ Accept defaults"
	if len(form.Fields) == 0 {
		accept = "✅ Accept"
	}
	rows = append(rows, []models.InlineKeyboardButton{
		{Text: accept, CallbackData: questionPrefix + "a|" + e.ID},
		{Text: "❌ Decline", CallbackData: questionPrefix + "d|" + e.ID},
		{Text: "✖️ Cancel", CallbackData: questionPrefix + "c|" + e.ID},
	})
	c.questions.put(x)
	m, err := c.api.sendMessage(ctx, &bot.SendMessageParams{ChatID: chatID, Text: x.html, ParseMode: models.ParseModeHTML,
		ReplyMarkup: &models.InlineKeyboardMarkup{InlineKeyboard: rows}})
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("send question", "chat_id", chatID, "err", err)
		}
		return
	}
	c.questions.mu.Lock()
	x.msgID = m.ID
	early := x.outcome
	c.questions.mu.Unlock()
	if early != "" {
		c.closeQuestion(ctx, x, early)
	}
}

// onQuestionCallback answers a question's button press.
func (c *Channel) onQuestionCallback(ctx context.Context, cq *models.CallbackQuery) {
	parts := strings.SplitN(strings.TrimPrefix(cq.Data, questionPrefix), "|", 2)
	if len(parts) != 2 || cq.Message.Message == nil {
		_ = c.api.answerCallback(ctx, cq.ID, "You are not allowed to answer this.")
		return
	}
	x := c.questions.get(cq.Message.Message.Chat.ID)
	if refusal := c.questionRefusal(cq, x, parts[1]); refusal != "" {
		_ = c.api.answerCallback(ctx, cq.ID, refusal)
		return
	}
	a := beamclaw.ElicitAnswer{Action: map[string]string{"a": beamclaw.ElicitAccept, "d": beamclaw.ElicitDecline,
		"c": beamclaw.ElicitCancel}[parts[0]]}
	if strings.HasPrefix(parts[0], "v") {
		i, err := strconv.Atoi(parts[0][1:])
		if err != nil || i < 0 || i >= len(x.choice) || len(x.form.Fields) != 1 {
			_ = c.api.answerCallback(ctx, cq.ID, "")
			return
		}
		f := x.form.Fields[0]
		v, err := f.Value(x.choice[i])
		if err != nil {
			_ = c.api.answerCallback(ctx, cq.ID, err.Error())
			return
		}
		a = beamclaw.ElicitAnswer{Action: beamclaw.ElicitAccept, Content: map[string]any{f.Name: v}}
	}
	if a.Action == "" {
		_ = c.api.answerCallback(ctx, cq.ID, "")
		return
	}
	c.submitAnswer(ctx, x, a)
	_ = c.api.answerCallback(ctx, cq.ID, outcomeLine(a.Action))
}

// questionRefusal is the callback answer to a press on question id that
// may not answer it (x is the chat's waiting question): "" when it may.
// In a group only the member it names answers; in a DM a user the gate
// admits.
func (c *Channel) questionRefusal(cq *models.CallbackQuery, x *question, id string) string {
	if cq.Message.Message.Chat.Type == models.ChatTypePrivate {
		if _, v := c.gate.Check(strconv.FormatInt(cq.From.ID, 10), cq.From.Username); v != pairing.Admitted {
			return "You are not allowed to answer this."
		}
	}
	if x == nil || x.id != id {
		return "This question has expired."
	}
	if x.member != 0 && cq.From.ID != x.member {
		return "This question is for " + x.name + "."
	}
	return ""
}

// answerText takes a message as the answer to the chat's question, if
// one waits for its sender (in a group, the member it names); it reports
// whether the message was used.
func (c *Channel) answerText(ctx context.Context, msg *models.Message, cv conv) bool {
	x := c.questions.get(msg.Chat.ID)
	text := strings.TrimSpace(msg.Text)
	if x == nil || text == "" || x.member != cv.member {
		return false
	}
	var a beamclaw.ElicitAnswer
	switch strings.ToLower(text) {
	case "/decline":
		a.Action = beamclaw.ElicitDecline
	case "/cancel":
		a.Action = beamclaw.ElicitCancel
	case "/accept":
		a.Action = beamclaw.ElicitAccept
	default:
		if strings.HasPrefix(text, "/") {
			return false
		}
		content, err := x.form.ParseText(text)
		if err != nil {
			c.reply(ctx, msg.Chat.ID, "⚠️ "+escapeText(err.Error()))
			return true
		}
		a = beamclaw.ElicitAnswer{Action: beamclaw.ElicitAccept, Content: content}
	}
	c.submitAnswer(ctx, x, a)
	return true
}

// submitAnswer hands the answer to the session layer (for the session
// user the question was asked for) and closes the question in the chat.
func (c *Channel) submitAnswer(ctx context.Context, x *question, a beamclaw.ElicitAnswer) {
	err := c.opts.Sessions.Answer(ctx, x.user, x.id, a)
	line := outcomeLine(a.Action)
	switch {
	case beamclaw.KindOf(err) == beamclaw.KindNotFound && err != nil:
		line = "⌛ Expired: nobody is waiting for this answer any more"
	case err != nil:
		c.log.Warn("question answer", "elicitation_id", x.id, "err", err)
		c.reply(ctx, x.chatID, "⚠️ "+escapeText(beamclaw.UserMessage(err)))
		return
	}
	if c.questions.take(x.chatID, x.id) != nil {
		c.closeQuestion(ctx, x, line)
	}
}

// closeQuestion edits the question to its outcome, without buttons.
func (c *Channel) closeQuestion(ctx context.Context, x *question, line string) {
	c.questions.mu.Lock()
	msgID := x.msgID
	if msgID == 0 {
		x.outcome = line // shown once the message is sent
	}
	c.questions.mu.Unlock()
	if msgID == 0 {
		return
	}
	err := c.api.editMessageText(ctx, &bot.EditMessageTextParams{ChatID: x.chatID, MessageID: msgID,
		Text: x.html + "\n\n<b>" + escapeText(line) + "</b>", ParseMode: models.ParseModeHTML})
	if err != nil && ctx.Err() == nil {
		c.log.Warn("edit question", "chat_id", x.chatID, "err", err)
	}
}

func outcomeLine(action string) string {
	switch action {
	case beamclaw.ElicitAccept:
		return "✅ Answered"
	case beamclaw.ElicitDecline:
		return "❌ Declined"
	}
	return "✖️ Cancelled"
}
