package telegram

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/clock"
)

// streamer is a route's worker: it shows the answer as messages edited in
// place, approval prompts with buttons, and typing while the run works.
type streamer struct {
	r        *route
	c        *Channel
	ids      []int    // message ids of the answer, in order
	sent     []string // what each shows now
	lastEdit time.Time
	prompts  []string // approval ids this run asked

	shownText, shownStatus string // the state show last rendered
}

func newStreamer(r *route) *streamer { return &streamer{r: r, c: r.c} }

func (s *streamer) run(ctx context.Context) {
	clk := s.c.opts.Clock
	typing := clk.NewTicker(typingEvery)
	defer typing.Stop()
	s.typing(ctx)
	var throttle clock.Timer
	var throttleC <-chan time.Time
	defer func() {
		if throttle != nil {
			throttle.Stop()
		}
	}()
	for {
		st := s.r.take()
		for _, ev := range st.ctrl {
			s.control(ctx, ev)
		}
		if st.done {
			s.finish(ctx, st)
			return
		}
		if throttleC == nil && s.changed(st) {
			wait := s.lastEdit.Add(s.c.opts.EditInterval).Sub(clk.Now())
			if len(s.ids) == 0 || wait <= 0 {
				s.show(ctx, s.c.api, st.text, s.line(st))
			} else {
				throttle = clk.NewTimer(wait)
				throttleC = throttle.C()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.r.wake:
		case <-throttleC:
			throttleC = nil
		case <-typing.C():
			if s.openPrompts() == 0 {
				s.typing(ctx)
			}
		}
	}
}

func (s *streamer) typing(ctx context.Context) {
	if err := s.c.api.typing(ctx, s.r.conv.chat); err != nil && ctx.Err() == nil {
		s.c.log.Debug("typing action", "chat_id", s.r.conv.chat, "err", err)
	}
}

// line is the status line under the answer (routeState.line). In a group
// a message queued behind another member's approval names that member:
// only they can answer it, not the sender the session's text addresses.
func (s *streamer) line(st routeState) string {
	if cv := s.r.conv; st.status == "" && st.waiting != "" && cv.member != 0 {
		if mine, other := s.c.approvals.waiting(cv.chat, cv.member); !mine && other != "" {
			return "⏸ This message waits until " + other + " answers the approval asked earlier; it runs once that is answered or the approval times out."
		}
	}
	return st.line()
}

// render is the HTML parts of text plus the status line, which is added
// to the last part only when it fits.
func render(text, status string) []string {
	if strings.TrimSpace(text) == "" && status == "" {
		return nil
	}
	parts := Split(FormatHTML(text), MaxMessageLen)
	if status == "" {
		return parts
	}
	line := "<i>" + escapeText(status) + "</i>"
	if len(parts) == 0 {
		return []string{line}
	}
	last := parts[len(parts)-1]
	if utf16Len(last)+2+utf16Len(line) <= MaxMessageLen {
		parts[len(parts)-1] = last + "\n\n" + line
	}
	return parts
}

// changed reports whether the answer differs from what was last shown.
// changed reports whether the shown message is worth an edit: a new
// status, or at least EditChunk more characters of the answer (Telegram
// rate-limits edits; the final answer is always shown whole).
func (s *streamer) changed(st routeState) bool {
	if s.line(st) != s.shownStatus {
		return true
	}
	if len(s.ids) == 0 {
		return st.text != "" // the first piece goes out at once
	}
	return len(st.text)-len(s.shownText) >= s.c.opts.EditChunk || !strings.HasPrefix(st.text, s.shownText)
}

// show brings the answer messages up to date through a: new parts are
// sent, changed ones edited.
func (s *streamer) show(ctx context.Context, a *api, text, status string) {
	s.shownText, s.shownStatus = text, status
	for i, part := range render(text, status) {
		if i < len(s.sent) && s.sent[i] == part {
			continue
		}
		if i < len(s.ids) {
			err := a.editMessageText(ctx, &bot.EditMessageTextParams{ChatID: s.r.conv.chat,
				MessageID: s.ids[i], Text: part, ParseMode: models.ParseModeHTML})
			if err != nil && !notModified(err) {
				s.logFail(ctx, "edit answer", err)
				continue
			}
			s.sent[i] = part
		} else {
			m, err := a.sendMessage(ctx, &bot.SendMessageParams{ChatID: s.r.conv.chat,
				Text: part, ParseMode: models.ParseModeHTML})
			if err != nil {
				s.logFail(ctx, "send answer", err)
				return
			}
			s.ids, s.sent = append(s.ids, m.ID), append(s.sent, part)
		}
	}
	s.lastEdit = s.c.opts.Clock.Now()
}

func notModified(err error) bool {
	return errors.Is(err, bot.ErrorBadRequest) && strings.Contains(err.Error(), "not modified")
}

func (s *streamer) logFail(ctx context.Context, what string, err error) {
	if ctx.Err() == nil {
		s.c.log.Warn(what, "chat_id", s.r.conv.chat, "err", err)
	}
}

// control sends an approval prompt or shows a decision taken elsewhere
// (a /yes text reply).
func (s *streamer) control(ctx context.Context, ev beamclaw.RunEvent) {
	if ev.Elicit != nil {
		s.c.question(ctx, s.r.conv, ev)
		return
	}
	req := *ev.Approval
	if ev.Type == beamclaw.EvApprovalResult {
		if p, first := s.c.approvals.finish(req.ID); first {
			s.c.showOutcome(ctx, p, decisionLine(beamclaw.Decision(ev.Text)))
		}
		return
	}
	cv := s.r.conv
	p := &prompt{chatID: cv.chat, html: promptHTML(req, cv), member: cv.member, name: cv.name}
	key := s.c.approvals.add(req.ID, p)
	s.prompts = append(s.prompts, req.ID)
	m, err := s.c.api.sendMessage(ctx, &bot.SendMessageParams{ChatID: s.r.conv.chat, Text: p.html,
		ParseMode: models.ParseModeHTML, ReplyMarkup: keyboard(key)})
	if err != nil {
		s.logFail(ctx, "send approval prompt", err)
		return
	}
	s.c.approvals.sent(p, m.ID)
}

func (s *streamer) openPrompts() int {
	s.c.approvals.mu.Lock()
	defer s.c.approvals.mu.Unlock()
	n := 0
	for _, id := range s.prompts {
		if p := s.c.approvals.m[id]; p != nil && !p.done {
			n++
		}
	}
	return n
}

// finish shows the final answer (or the failure), waiting out flood
// control (api.patient), and marks prompts the run never got an answer
// to as expired.
func (s *streamer) finish(ctx context.Context, st routeState) {
	if !st.silent {
		s.show(ctx, s.c.api.patient(), st.text, "")
		if st.failure != "" {
			s.c.reply(ctx, s.r.conv.chat, "⚠️ "+escapeText(st.failure))
		}
	}
	for _, id := range s.prompts {
		if p, first := s.c.approvals.finish(id); first {
			s.c.showOutcome(ctx, p, decisionLine(""))
		}
		s.c.approvals.forget(id)
	}
}
