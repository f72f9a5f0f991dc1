package faketelegram

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

type update struct {
	id  int64
	raw json.RawMessage
}

// User is who sends an injected update.
type User struct {
	ID       int64
	Username string
	Name     string
}

// Photo is one size of an injected photo; Data is what getFile serves.
type Photo struct {
	Width, Height int
	Data          []byte
}

func (u User) json() map[string]any {
	m := map[string]any{"id": u.ID, "is_bot": false, "first_name": u.Name}
	if u.Name == "" {
		m["first_name"] = "user"
	}
	if u.Username != "" {
		m["username"] = u.Username
	}
	return m
}

// chatJSON is a private chat with u, or a group when chatID differs from
// u.ID (a group's id is negative).
func chatJSON(chatID int64, u User) map[string]any {
	if chatID == u.ID {
		return map[string]any{"id": chatID, "type": "private", "first_name": u.json()["first_name"]}
	}
	return map[string]any{"id": chatID, "type": "group", "title": "group"}
}

// setText sets a message's text and the entities Telegram marks in it.
func setText(m map[string]any, text string) {
	m["text"] = text
	if ents := entities(text); len(ents) > 0 {
		m["entities"] = ents
	}
}

// enqueue adds an update built by fill (which gets the update id and sets
// the payload field) and returns the update's JSON.
func (s *Server) enqueue(fill func(id int64, u map[string]any)) (int64, json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextUpd++
	id := s.nextUpd
	u := map[string]any{"update_id": id}
	fill(id, u)
	raw, err := json.Marshal(u)
	if err != nil {
		panic(fmt.Sprintf("faketelegram: marshal update: %v", err))
	}
	s.updates = append(s.updates, update{id: id, raw: raw})
	s.notifyLocked()
	return id, raw
}

func (s *Server) messageLocked(chatID int64, from User) map[string]any {
	return map[string]any{
		"message_id": s.userMessageIDLocked(chatID),
		"date":       time.Now().Unix(),
		"chat":       chatJSON(chatID, from),
		"from":       from.json(),
	}
}

// SendText injects a text message from user in chatID (chatID == from.ID
// is a DM). It returns the update id and the update's JSON (to POST to a
// webhook).
func (s *Server) SendText(chatID int64, from User, text string) (int64, json.RawMessage) {
	return s.enqueue(func(_ int64, u map[string]any) {
		m := s.messageLocked(chatID, from)
		setText(m, text)
		u["message"] = m
	})
}

// SendReply injects a text message from user in chatID that replies to
// the bot's message replyTo (as a user does with Telegram's Reply).
func (s *Server) SendReply(chatID int64, from User, replyTo int, text string) (int64, json.RawMessage) {
	return s.enqueue(func(_ int64, u map[string]any) {
		m := s.messageLocked(chatID, from)
		setText(m, text)
		orig := ""
		if c := s.chats[chatID]; c != nil && c.messages[replyTo] != nil {
			orig = PlainText(c.messages[replyTo].Text)
		}
		m["reply_to_message"] = messageJSON(chatID, replyTo, orig, "")
		u["message"] = m
	})
}

// SendPhoto injects a photo with its sizes (smallest first, as Telegram
// sends them); each size's Data is served by getFile and the file path.
func (s *Server) SendPhoto(chatID int64, from User, caption string, sizes []Photo) (int64, json.RawMessage) {
	return s.enqueue(func(_ int64, u map[string]any) {
		m := s.messageLocked(chatID, from)
		var ps []map[string]any
		for _, p := range sizes {
			id := s.addFileLocked("photos", ".jpg", p.Data)
			ps = append(ps, map[string]any{"file_id": id, "file_unique_id": "u" + id,
				"width": p.Width, "height": p.Height, "file_size": len(p.Data)})
		}
		m["photo"] = ps
		if caption != "" {
			m["caption"] = caption
			if ents := entities(caption); len(ents) > 0 {
				m["caption_entities"] = ents
			}
		}
		u["message"] = m
	})
}

// SendVoice injects a voice note of duration seconds.
func (s *Server) SendVoice(chatID int64, from User, duration int, data []byte) (int64, json.RawMessage) {
	return s.enqueue(func(_ int64, u map[string]any) {
		m := s.messageLocked(chatID, from)
		id := s.addFileLocked("voice", ".oga", data)
		m["voice"] = map[string]any{"file_id": id, "file_unique_id": "u" + id,
			"duration": duration, "mime_type": "audio/ogg", "file_size": len(data)}
		u["message"] = m
	})
}

// PressButton injects a callback query: from pressed the inline button
// with data under the bot message messageID of chatID. It returns the
// update id, its JSON, and the callback query id.
func (s *Server) PressButton(chatID int64, from User, messageID int, data string) (int64, json.RawMessage, string) {
	var cbID string
	id, raw := s.enqueue(func(_ int64, u map[string]any) {
		s.nextCBQ++
		cbID = fmt.Sprintf("cbq-%d", s.nextCBQ)
		text, markup := "", ""
		if c := s.chats[chatID]; c != nil && c.messages[messageID] != nil {
			text, markup = PlainText(c.messages[messageID].Text), c.messages[messageID].ReplyMarkup
		}
		msg := messageJSON(chatID, messageID, text, markup)
		u["callback_query"] = map[string]any{"id": cbID, "from": from.json(),
			"message": msg, "chat_instance": "ci", "data": data}
	})
	return id, raw, cbID
}

// getUpdates answers with the updates at or after offset, waiting up to
// timeout seconds for one to arrive. A positive offset confirms (drops)
// every earlier update, as in Telegram.
func (s *Server) getUpdates(ctx context.Context, p map[string]string) (any, *apiError) {
	offset, _ := intParam(p, "offset")
	timeout, _ := intParam(p, "timeout")
	limit, ok := intParam(p, "limit")
	if !ok || limit <= 0 || limit > 100 {
		limit = 100
	}
	deadline := time.NewTimer(time.Duration(timeout) * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if s.webhook.URL != "" {
			s.mu.Unlock()
			return nil, &apiError{409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}
		}
		if offset > 0 && offset-1 > s.confirmed {
			s.confirmed = offset - 1
			s.notifyLocked()
		}
		out := []json.RawMessage{}
		for _, u := range s.updates {
			if u.id > s.confirmed && int64(len(out)) < limit {
				out = append(out, u.raw)
			}
		}
		ch, closed := s.changed, s.closed
		s.mu.Unlock()
		if len(out) > 0 || timeout <= 0 || closed {
			return out, nil
		}
		select {
		case <-ch:
		case <-deadline.C:
			return out, nil
		case <-ctx.Done():
			return out, nil
		}
	}
}

// Confirmed is the highest update id a getUpdates offset has confirmed.
func (s *Server) Confirmed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.confirmed
}
