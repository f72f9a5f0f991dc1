package faketelegram

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"unicode/utf16"
)

// Bot is the bot the fake says it is (getMe) and that sends its messages.
var Bot = User{ID: 123456789, Username: "beamclaw_test_bot", Name: "beamclaw"}

// chatType is the type of a chat as Telegram reports it: group chats have
// negative ids, private chats the (positive) id of their user.
func chatType(chatID int64) string {
	if chatID < 0 {
		return "group"
	}
	return "private"
}

// mentionRe and commandRe find what Telegram marks as entities in a
// message it receives: @usernames, and bot commands at the start of the
// text or after white space (optionally addressed: /new@some_bot).
var (
	mentionRe = regexp.MustCompile(`@[A-Za-z0-9_]{5,32}`)
	commandRe = regexp.MustCompile(`(^|\s)(/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{5,32})?)`)
)

// entities are the mention and bot_command entities Telegram's server
// adds to text, with offsets and lengths in UTF-16 code units as in the
// Bot API.
func entities(text string) []map[string]any {
	u16 := func(byteOff int) int { return len(utf16.Encode([]rune(text[:byteOff]))) }
	var out []map[string]any
	add := func(kind string, start, end int) {
		out = append(out, map[string]any{"type": kind, "offset": u16(start), "length": u16(end) - u16(start)})
	}
	for _, m := range commandRe.FindAllStringSubmatchIndex(text, -1) {
		add("bot_command", m[4], m[5])
	}
	for _, m := range mentionRe.FindAllStringIndex(text, -1) {
		if !insideCommand(out, u16(m[0])) {
			add("mention", m[0], m[1])
		}
	}
	slices.SortStableFunc(out, func(a, b map[string]any) int { return a["offset"].(int) - b["offset"].(int) })
	return out
}

func insideCommand(ents []map[string]any, off int) bool {
	for _, e := range ents {
		if start := e["offset"].(int); off >= start && off < start+e["length"].(int) {
			return true
		}
	}
	return false
}

// SetAdmins makes users the administrators of the group chatID (the first
// one its creator), as getChatAdministrators reports them.
func (s *Server) SetAdmins(chatID int64, users ...User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admins == nil {
		s.admins = map[int64][]User{}
	}
	s.admins[chatID] = users
	s.notifyLocked()
}

// getChatAdministrators answers the ChatMember list of a group: its
// creator first, then its administrators (the bot is one of them).
func (s *Server) getChatAdministrators(_ context.Context, p map[string]string) (any, *apiError) {
	chatID, ok := intParam(p, "chat_id")
	if !ok {
		return nil, &apiError{http.StatusBadRequest, "Bad Request: chat not found"}
	}
	if chatType(chatID) == "private" {
		return nil, &apiError{http.StatusBadRequest, "Bad Request: there are no administrators in the private chat"}
	}
	s.mu.Lock()
	users := append([]User(nil), s.admins[chatID]...)
	s.mu.Unlock()
	out := []map[string]any{}
	for i, u := range users {
		if i == 0 {
			out = append(out, map[string]any{"status": "creator", "user": u.json(), "is_anonymous": false})
			continue
		}
		out = append(out, adminJSON(u.json()))
	}
	bot := Bot.json()
	bot["is_bot"] = true
	return append(out, adminJSON(bot)), nil
}

func adminJSON(user map[string]any) map[string]any {
	return map[string]any{"status": "administrator", "user": user, "can_be_edited": false, "is_anonymous": false,
		"can_manage_chat": true, "can_delete_messages": true, "can_manage_video_chats": true,
		"can_restrict_members": true, "can_promote_members": false, "can_change_info": true,
		"can_invite_users": true, "can_post_stories": false, "can_edit_stories": false, "can_delete_stories": false}
}
