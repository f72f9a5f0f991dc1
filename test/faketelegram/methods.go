package faketelegram

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf16"
)

// MaxMessageLen is Telegram's limit on a message's text, in UTF-16 code
// units after entity parsing.
const MaxMessageLen = 4096

type file struct {
	path string
	data []byte
}

type methodFunc func(ctx context.Context, p map[string]string) (any, *apiError)

func (s *Server) handler(method string) (methodFunc, bool) {
	m := map[string]methodFunc{
		"getMe":               s.getMe,
		"getUpdates":          s.getUpdates,
		"setWebhook":          s.setWebhook,
		"deleteWebhook":       s.deleteWebhook,
		"getWebhookInfo":      s.getWebhookInfo,
		"sendMessage":         s.sendMessage,
		"editMessageText":     s.editMessageText,
		"sendChatAction":      s.ok,
		"answerCallbackQuery": s.ok,
		"getFile":             s.getFile,

		"getChatAdministrators": s.getChatAdministrators,
	}
	h, ok := m[method]
	return h, ok
}

func (s *Server) ok(context.Context, map[string]string) (any, *apiError) { return true, nil }

func (s *Server) getMe(context.Context, map[string]string) (any, *apiError) {
	return map[string]any{"id": Bot.ID, "is_bot": true, "first_name": Bot.Name,
		"username": Bot.Username, "can_join_groups": true}, nil
}

func (s *Server) setWebhook(_ context.Context, p map[string]string) (any, *apiError) {
	if p["url"] == "" {
		return nil, &apiError{http.StatusBadRequest, "Bad Request: bad webhook: url is empty"}
	}
	s.mu.Lock()
	s.webhook = webhook{URL: p["url"], Secret: p["secret_token"]}
	s.notifyLocked()
	s.mu.Unlock()
	return true, nil
}

func (s *Server) deleteWebhook(context.Context, map[string]string) (any, *apiError) {
	s.mu.Lock()
	s.webhook = webhook{}
	s.mu.Unlock()
	return true, nil
}

func (s *Server) getWebhookInfo(context.Context, map[string]string) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]any{"url": s.webhook.URL, "pending_update_count": 0}, nil
}

// Webhook returns the URL and secret of the last setWebhook ("" when none).
func (s *Server) Webhook() (url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook.URL, s.webhook.Secret
}

func checkText(p map[string]string) *apiError {
	text := p["text"]
	if strings.TrimSpace(text) == "" {
		return &apiError{http.StatusBadRequest, "Bad Request: message text is empty"}
	}
	plain := text
	if strings.EqualFold(p["parse_mode"], "HTML") {
		var err error
		if plain, err = parseHTML(text); err != nil {
			return &apiError{http.StatusBadRequest, "Bad Request: can't parse entities: " + err.Error()}
		}
	}
	if len(utf16.Encode([]rune(plain))) > MaxMessageLen {
		return &apiError{http.StatusBadRequest, "Bad Request: message is too long"}
	}
	return nil
}

func (s *Server) sendMessage(_ context.Context, p map[string]string) (any, *apiError) {
	chatID, ok := intParam(p, "chat_id")
	if !ok {
		return nil, &apiError{http.StatusBadRequest, "Bad Request: chat not found"}
	}
	if e := checkText(p); e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(chatID)
	m := &Message{ChatID: chatID, ID: c.nextID, Text: p["text"], ParseMode: p["parse_mode"],
		ReplyMarkup: p["reply_markup"]}
	c.nextID++
	c.messages[m.ID] = m
	c.order = append(c.order, m.ID)
	s.notifyLocked()
	return messageJSON(chatID, m.ID, PlainText(m.Text), m.ReplyMarkup), nil
}

func (s *Server) editMessageText(_ context.Context, p map[string]string) (any, *apiError) {
	chatID, _ := intParam(p, "chat_id")
	msgID, _ := intParam(p, "message_id")
	if e := checkText(p); e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil || c.messages[int(msgID)] == nil {
		return nil, &apiError{http.StatusBadRequest, "Bad Request: message to edit not found"}
	}
	m := c.messages[int(msgID)]
	if m.Text == p["text"] && m.ReplyMarkup == p["reply_markup"] {
		return nil, &apiError{http.StatusBadRequest, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}
	}
	m.Text, m.ParseMode, m.ReplyMarkup = p["text"], p["parse_mode"], p["reply_markup"]
	m.Edits++
	s.notifyLocked()
	return messageJSON(chatID, m.ID, PlainText(m.Text), m.ReplyMarkup), nil
}

func (s *Server) addFileLocked(dir, ext string, data []byte) string {
	s.nextFile++
	id := fmt.Sprintf("file-%d", s.nextFile)
	s.files[id] = file{path: fmt.Sprintf("%s/file_%d%s", dir, s.nextFile, ext), data: data}
	return id
}

func (s *Server) getFile(_ context.Context, p map[string]string) (any, *apiError) {
	s.mu.Lock()
	f, ok := s.files[p["file_id"]]
	s.mu.Unlock()
	if !ok {
		return nil, &apiError{http.StatusBadRequest, "Bad Request: invalid file_id"}
	}
	return map[string]any{"file_id": p["file_id"], "file_unique_id": "u" + p["file_id"],
		"file_size": len(f.data), "file_path": f.path}, nil
}

// serveFile answers /file/bot<TOKEN>/<path>.
func (s *Server) serveFile(w http.ResponseWriter, rest string) {
	token, path, ok := strings.Cut(rest, "/")
	if !ok || token != s.token {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	s.record(Call{Method: "file", Params: map[string]string{"path": path}})
	s.mu.Lock()
	var data []byte
	found := false
	for _, f := range s.files {
		if f.path == path {
			data, found = f.data, true
		}
	}
	s.mu.Unlock()
	if !found {
		http.NotFound(w, nil)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(data)
}
