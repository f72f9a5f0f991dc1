package faketelegram

import (
	"encoding/json"
	"time"
)

// Message is a bot message as the fake holds it.
type Message struct {
	ChatID      int64
	ID          int
	Text        string // as sent (HTML source when ParseMode is HTML)
	ParseMode   string
	ReplyMarkup string // JSON, "" when none
	Edits       int
}

type chat struct {
	nextID   int
	messages map[int]*Message
	order    []int
}

func (s *Server) chatLocked(id int64) *chat {
	c := s.chats[id]
	if c == nil {
		c = &chat{nextID: 1, messages: map[int]*Message{}}
		s.chats[id] = c
	}
	return c
}

// Messages returns the bot messages of chat in the order they were sent,
// in their current (edited) state.
func (s *Server) Messages(chatID int64) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil {
		return nil
	}
	out := make([]Message, 0, len(c.order))
	for _, id := range c.order {
		out = append(out, *c.messages[id])
	}
	return out
}

// userMessageID reserves a message id in chat for an incoming message, so
// user and bot messages share one sequence as in Telegram.
func (s *Server) userMessageIDLocked(chatID int64) int {
	c := s.chatLocked(chatID)
	id := c.nextID
	c.nextID++
	return id
}

// messageJSON is a bot message as Telegram returns it.
func messageJSON(chatID int64, id int, text string, markup string) map[string]any {
	from := Bot.json()
	from["is_bot"] = true
	m := map[string]any{
		"message_id": id,
		"date":       time.Now().Unix(),
		"chat":       map[string]any{"id": chatID, "type": chatType(chatID)},
		"from":       from,
		"text":       text,
	}
	if markup != "" {
		m["reply_markup"] = json.RawMessage(markup)
	}
	return m
}
